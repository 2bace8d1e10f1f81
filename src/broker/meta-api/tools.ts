import type { Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import {
  CallRequest,
  DescribeRequest,
  RunRequest,
  SearchRequest,
  TreeRequest,
} from "./requests.js";

/** What a meta tool's MCP `inputSchema` is: its request schema, as a caller writes it. */
function inputSchema(schema: z.ZodType): Tool["inputSchema"] {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input" });
  return json as Tool["inputSchema"];
}

/**
 * The meta tools as MCP lists them, their `inputSchema`s made from the
 * request schemas every frontend parses with. Their descriptions stay short
 * and fixed whatever the size of the tree: a model reads the tree on
 * demand, not up front.
 */
export const META_TOOLS: Tool[] = [
  {
    name: "meta_tree",
    description:
      'List the direct children (nodes and tools) of a node in the tool tree. Start with path "/".',
    inputSchema: inputSchema(TreeRequest),
    annotations: { readOnlyHint: true },
  },
  {
    name: "meta_desc",
    description:
      'Describe the node or tool at a path: summary, description, args_schema, example_args. format "typescript": its tools, for meta_run.',
    inputSchema: inputSchema(DescribeRequest),
    annotations: { readOnlyHint: true },
  },
  {
    name: "meta_search",
    description:
      "Find tools by what they do, in words. Returns paths for meta_desc and meta_call; include_schema adds each args_schema.",
    inputSchema: inputSchema(SearchRequest),
    annotations: { readOnlyHint: true },
  },
  {
    name: "meta_call",
    description: "Call the tool at a path with args that match the args_schema given by meta_desc.",
    inputSchema: inputSchema(CallRequest),
  },
  {
    name: "meta_run",
    description: [
      "Run JavaScript that calls many tools in one step; only what it returns comes back, from a sandbox (no I/O).",
      "In scope: await call(path, args), search(query, {limit}), describe(path), tree(path); tools.<node>.<tool>(args); console.log. A failed call throws an Error with err.kind. meta_desc format typescript declares the tools.",
      "Example: const r = await tools.demo.add({a: 1, b: 2}); return r;",
      "Answers {result, logs, calls} or {error: {kind, message, line}}.",
    ].join("\n"),
    inputSchema: inputSchema(RunRequest),
  },
];

export const META_TOOL_NAMES = new Set(META_TOOLS.map((t) => t.name));
