import type { Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { EntrySummary } from "./answers.js";
import {
  CallRequest,
  DescribeRequest,
  RunRequest,
  SearchRequest,
  TreeRequest,
} from "./requests.js";
import { topNodesText } from "./top-nodes.js";

/** What a meta tool's MCP `inputSchema` is: its request schema, as a caller writes it. */
function inputSchema(schema: z.ZodType): Tool["inputSchema"] {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input" });
  return withoutVacuous(json) as Tool["inputSchema"];
}

/**
 * A JSON Schema without the keywords zod writes for a record that allow
 * what JSON allows anyway (`propertyNames: {type: "string"}`,
 * `additionalProperties: {}`): every byte of the meta tools' schemas is in
 * each `tools/list`, where the room is better spent naming the tree's top.
 */
function withoutVacuous(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutVacuous);
  if (typeof schema !== "object" || schema === null) return schema;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "propertyNames" && isStringType(value)) continue;
    if (key === "additionalProperties" && isEmptyObject(value)) continue;
    kept[key] = withoutVacuous(value);
  }
  return kept;
}

function isStringType(value: unknown): boolean {
  return JSON.stringify(value) === '{"type":"string"}';
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 0;
}

/**
 * The meta tools as MCP lists them, their `inputSchema`s made from the
 * request schemas every frontend parses with. Their descriptions stay short
 * whatever the size of the tree (a model reads the tree on demand, not up
 * front); `metaToolsFor` adds what is at its top.
 */
const META_TOOLS: Tool[] = [
  {
    name: "meta_tree",
    description: 'List the children (nodes and tools) of a node of the tool tree; start at "/".',
    inputSchema: inputSchema(TreeRequest),
    annotations: { readOnlyHint: true },
  },
  {
    name: "meta_desc",
    description:
      "Describe the node or tool at a path: summary, description, args_schema, example_args.",
    inputSchema: inputSchema(DescribeRequest),
    annotations: { readOnlyHint: true },
  },
  {
    name: "meta_search",
    description: "Find tools by what they do, in words; gives paths for meta_desc and meta_call.",
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
      "Run JavaScript that calls many tools in one step, in a sandbox (no I/O); only what it returns comes back.",
      "In scope: await call(path, args), search(query), describe(path), tree(path), tools.<node>.<tool>(args), console.log; a failed call throws an Error with err.kind. meta_desc format typescript declares the tools.",
      "Example: const r = await tools.demo.add({a: 1, b: 2}); return r;",
    ].join("\n"),
    inputSchema: inputSchema(RunRequest),
  },
];

export const META_TOOL_NAMES = new Set(META_TOOLS.map((t) => t.name));

/** The most a description of meta_search may grow to with what the tree holds. */
const SEARCH_DESCRIPTION_BYTES = 600;
const TREE_DESCRIPTION_BYTES = 200;
/** What `tools/list` of the meta tools stays within, whatever the tree. */
const META_LIST_BYTES = 3072;

/**
 * The meta tools as one caller sees them: `meta_search` names the top-level
 * entries of the tree it may see and what they hold, `meta_tree` their names,
 * in what `META_LIST_BYTES` leaves (a tree change is announced as
 * `list_changed`, so a client lists them again); `meta_run` only where the
 * caller may run scripts.
 */
export function metaToolsFor(top: readonly EntrySummary[], mayRun: boolean): Tool[] {
  const tools = META_TOOLS.filter((t) => t.name !== "meta_run" || mayRun);
  const search = tools.findIndex((t) => t.name === "meta_search");
  const tree = tools.findIndex((t) => t.name === "meta_tree");
  // The names first: short, and what a model reads first; the summaries in what is left.
  tools[tree] = withHolding(tools[tree]!, top, TREE_DESCRIPTION_BYTES, false, tools);
  tools[search] = withHolding(tools[search]!, top, SEARCH_DESCRIPTION_BYTES, true, tools);
  return tools;
}

/** The tool with what the tree holds after its description, where the list has room. */
function withHolding(
  tool: Tool,
  top: readonly EntrySummary[],
  maxDescription: number,
  withSummaries: boolean,
  list: readonly Tool[],
): Tool {
  const description = tool.description!;
  let budget = Math.min(
    maxDescription - Buffer.byteLength(description) - 1,
    META_LIST_BYTES - listBytes(list) - 1,
  );
  // JSON escapes may make the text longer in the list than in itself: shrink until it fits.
  while (budget > 0) {
    const holds = topNodesText(top, budget, withSummaries);
    if (!holds) break;
    const grown = { ...tool, description: `${description} ${holds}` };
    const over = listBytes(list.map((t) => (t === tool ? grown : t))) - META_LIST_BYTES;
    if (over <= 0) return grown;
    budget -= over;
  }
  return tool;
}

function listBytes(tools: readonly Tool[]): number {
  return Buffer.byteLength(JSON.stringify({ tools }));
}
