import type { Tool } from "@modelcontextprotocol/sdk/types.js";

const path = {
  type: "string",
  description: 'Absolute path in the tool tree, such as "/" or "/repo/read/get_file".',
} as const;

/**
 * The four meta tools. Their descriptions stay short and fixed whatever the
 * size of the tree: a model reads the tree on demand, not up front.
 */
export const META_TOOLS: Tool[] = [
  {
    name: "meta_tree",
    description:
      'List the direct children (nodes and tools) of a node in the tool tree. Start with path "/".',
    inputSchema: { type: "object", properties: { path }, additionalProperties: false },
    annotations: { readOnlyHint: true },
  },
  {
    name: "meta_desc",
    description:
      "Describe the node or tool at a path. For a tool: its summary, description, args_schema and example_args.",
    inputSchema: {
      type: "object",
      properties: { path },
      required: ["path"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "meta_search",
    description:
      "Find tools by what they do, in words. Returns paths for meta_desc and meta_call; include_schema adds each args_schema.",
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: 'What the tool should do, such as "read a file".' },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 50,
          description: "Results at most; default 10.",
        },
        path: { ...path, description: "Search only under this node; default /." },
        include_schema: { type: "boolean", description: "Add each tool's args_schema." },
      },
      required: ["query"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "meta_call",
    description: "Call the tool at a path with args that match the args_schema given by meta_desc.",
    inputSchema: {
      type: "object",
      properties: { path, args: { type: "object", description: "Arguments of the tool." } },
      required: ["path"],
      additionalProperties: false,
    },
  },
];

export const META_TOOL_NAMES = new Set(META_TOOLS.map((t) => t.name));
