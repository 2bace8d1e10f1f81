import { typescriptSignature } from "../tree/typescript-declarations.js";
import type { ToolEntry, Tree, TreeEntry } from "../tree/tree.js";
import { lastSegment } from "../tree/path.js";
import type { ToolHit } from "../tool-search/tool-search.js";
import type { SourceStatus } from "../contract/router.js";
import type {
  EntryDescription,
  EntrySummary,
  FoundTool,
  NodeDescription,
  NodeListing,
  ToolDescription,
} from "./meta-api/answers.js";

/** The paths an answer's words name at most: a model reads them. */
const MOST_NAMED = 8;

/**
 * Paths named in words, the first eight and how many more:
 * "/demo, /memory, and 3 more".
 */
export function namedFew(paths: readonly string[]): string {
  const more = paths.length > MOST_NAMED ? `, and ${paths.length - MOST_NAMED} more` : "";
  return `${paths.slice(0, MOST_NAMED).join(", ")}${more}`;
}

export function summarizeEntry(entry: TreeEntry): EntrySummary {
  const out: EntrySummary = {
    path: entry.path,
    name: lastSegment(entry.path) || "/",
    type: entry.type,
  };
  if (entry.summary !== undefined) out.summary = entry.summary;
  return out;
}

/**
 * At most `limit` of a node's children from `offset`, as `meta_tree` lists
 * them: the listing as it always was when they fit; otherwise with how many there are
 * and, where more remain, where the next part starts, also in words for a model.
 */
export function pageOf(
  path: string,
  children: readonly TreeEntry[],
  offset: number,
  limit: number,
): NodeListing {
  const shown = children.slice(offset, offset + limit).map(summarizeEntry);
  if (offset === 0 && shown.length === children.length) return { path, children: shown };
  const next = offset + shown.length;
  if (next >= children.length) return { path, children: shown, total: children.length };
  return {
    path,
    children: shown,
    total: children.length,
    next_offset: next,
    notice: `${children.length} children, these are ${offset + 1} to ${next}: ask again with offset ${next} for the next, or meta_search with path "${path}" to find one by what it does`,
  };
}

/**
 * A node description's children: all of them, or past `shown`, the first
 * `shown` with how many there are and, in words, how to list the rest.
 */
export function firstChildren(
  path: string,
  children: EntrySummary[],
  shown: number | undefined,
): Pick<NodeDescription, "children" | "children_total" | "notice"> {
  if (shown === undefined || children.length <= shown) return { children };
  return {
    children: children.slice(0, shown),
    children_total: children.length,
    notice: `${children.length} children, these are the first ${shown}: meta_tree with offset ${shown} lists the next, or meta_search with path "${path}" finds one by what it does`,
  };
}

export function describeEntry(
  tree: Tree,
  entry: TreeEntry,
  status: (sourceId: string) => SourceStatus | undefined,
): EntryDescription {
  if (entry.type === "tool") return describeTool(entry);
  const out: NodeDescription = {
    path: entry.path,
    type: "node",
    children: tree.children(entry).map(summarizeEntry),
  };
  if (entry.summary !== undefined) out.summary = entry.summary;
  if (entry.description !== undefined) out.description = entry.description;
  const s = entry.mount === undefined ? undefined : status(entry.mount);
  if (entry.mount !== undefined && s) {
    out.source = {
      name: entry.mount,
      state: s.state,
      up: s.up,
      restarts: s.restarts,
      attempts: s.attempts,
    };
    if (s.lastError !== undefined) out.source.error = s.lastError;
    if (s.lastDown !== undefined) out.source.last_down = s.lastDown;
  }
  return out;
}

function describeTool(leaf: ToolEntry): ToolDescription {
  const out: ToolDescription = {
    path: leaf.path,
    type: "tool",
    summary: leaf.summary,
    description: leaf.description,
    args_schema: leaf.tool.inputSchema,
    flat_name: leaf.flatName,
    render_mode: leaf.renderMode,
    timeout_s: leaf.timeoutMs / 1000,
    limits: Object.fromEntries(Object.entries(leaf.limits).filter(([, v]) => v !== undefined)),
  };
  if (leaf.exampleArgs !== undefined) out.example_args = leaf.exampleArgs;
  if (leaf.tool.outputSchema !== undefined) out.output_schema = leaf.tool.outputSchema;
  if (leaf.tool.annotations !== undefined) out.annotations = leaf.tool.annotations;
  if (leaf.maxOutputChars !== undefined) out.max_output_chars = leaf.maxOutputChars;
  return out;
}

export function foundTool(
  leaf: ToolEntry,
  hit: Pick<ToolHit, "score" | "matched" | "prerequisiteOf">,
  withSchema: boolean,
): FoundTool {
  const out: FoundTool = {
    path: leaf.path,
    summary: leaf.summary,
    score: Number(hit.score.toPrecision(4)),
  };
  if (hit.matched) out.matched = { ...hit.matched };
  if (hit.prerequisiteOf) out.prerequisite_of = { ...hit.prerequisiteOf };
  if (withSchema) {
    out.args_schema = leaf.tool.inputSchema;
    out.declaration = typescriptSignature(leaf);
  }
  return out;
}
