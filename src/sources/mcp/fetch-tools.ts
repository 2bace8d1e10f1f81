import type { Client } from "@modelcontextprotocol/client";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/**
 * Every page of a backend's `tools/list` (the SDK walks the pages when asked
 * without a cursor), never from the SDK's response cache: the broker keeps
 * the list itself and refreshes it on `list_changed`.
 */
export async function fetchTools(client: Client): Promise<Tool[]> {
  const { tools } = await client.listTools(undefined, { cacheMode: "bypass" });
  return tools as Tool[];
}
