import type { Client, Tool } from "@modelcontextprotocol/client";
import type { CacheHint } from "../../contract/router.js";

/** A backend's tools, and its caching hint of them where it gave one. */
export interface FetchedTools {
  readonly tools: Tool[];
  readonly hint: CacheHint | undefined;
}

/**
 * Every page of a backend's `tools/list` (the SDK walks the pages when asked
 * without a cursor), never from the SDK's response cache: the broker keeps
 * the list itself and refreshes it on `list_changed`. A 2026-07-28 backend's
 * caching hint comes with it.
 */
export async function fetchTools(client: Client): Promise<FetchedTools> {
  const result = await client.listTools(undefined, { cacheMode: "bypass" });
  const { ttlMs, cacheScope } = result as { ttlMs?: number; cacheScope?: CacheHint["cacheScope"] };
  return {
    tools: result.tools as Tool[],
    hint: ttlMs === undefined || cacheScope === undefined ? undefined : { ttlMs, cacheScope },
  };
}
