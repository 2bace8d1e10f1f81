import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export const TOOLSET_VERSION = "1.0";

/** A list answer: `items` and `meta` with the page, the same JSON as text and as structured content. */
export function listResult(
  items: unknown[],
  limit: number,
  offset: number,
  hasMore: boolean,
): CallToolResult {
  return result({
    items,
    meta: {
      limit,
      offset,
      count: items.length,
      has_more: hasMore,
      toolsetVersion: TOOLSET_VERSION,
    },
  });
}

/** A get answer: `item` (or null) and `meta`. */
export function itemResult(item: unknown): CallToolResult {
  return result({ item, meta: { toolsetVersion: TOOLSET_VERSION } });
}

function result(structured: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}
