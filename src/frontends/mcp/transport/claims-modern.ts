import { PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";

/**
 * Whether a message claims revision 2026-07-28 or later by its envelope, as
 * every request of that revision does, malformed claims included. Anything
 * else (an `initialize`, a batch, a notification) is for the SDK's own
 * classifier to place.
 */
export function claimsModern(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const params = (body as { params?: unknown }).params;
  if (typeof params !== "object" || params === null) return false;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}
