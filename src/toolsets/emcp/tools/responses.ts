import type { CallToolResult } from "@modelcontextprotocol/server";

export const TOOLSET_VERSION = "1.0";

/** A list answer: `items` and `meta` with the page, the same JSON as text and as structured content. */
export function listResult(
  items: unknown[],
  limit: number,
  offset: number,
  hasMore: boolean,
): CallToolResult {
  return structuredResult({
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
  return structuredResult({ item, meta: { toolsetVersion: TOOLSET_VERSION } });
}

/** Any answer: the same JSON as structured content and as a text part. */
export function structuredResult(structured: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}
