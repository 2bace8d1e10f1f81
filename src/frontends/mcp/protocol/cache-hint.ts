import { EVERYONE } from "../../../auth/token-book.js";
import type { CacheHint, Principal } from "../../../contract/router.js";

/** The caching hint a 2026-07-28 result carries, if it carries one. */
export function hintOf(result: object): CacheHint | undefined {
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  if (typeof ttlMs !== "number" || (cacheScope !== "public" && cacheScope !== "private"))
    return undefined;
  return { ttlMs, cacheScope };
}

/**
 * The caching hint of a list the broker builds from its sources' lists
 * (2026-07-28 `ttlMs` / `cacheScope`): fresh only as long as its least fresh
 * part, and public only where every part is and the caller sees what
 * everyone sees (no tokens: a token's list is filtered by its scopes). No
 * hint where any part has none: the SDK then says "stale, private".
 */
export function combinedHint(
  hints: readonly (CacheHint | undefined)[],
  principal: Principal,
): CacheHint | Record<string, never> {
  return leastFresh(hints, principal.id === EVERYONE.id) ?? {};
}

/** The hint of parts taken together; public only if `mayShare` and every part is. */
export function leastFresh(
  hints: readonly (CacheHint | undefined)[],
  mayShare: boolean,
): CacheHint | undefined {
  if (hints.length === 0) return undefined;
  let ttlMs = Infinity;
  let shared = mayShare;
  for (const hint of hints) {
    if (hint === undefined) return undefined;
    ttlMs = Math.min(ttlMs, hint.ttlMs);
    shared &&= hint.cacheScope === "public";
  }
  return { ttlMs, cacheScope: shared ? "public" : "private" };
}
