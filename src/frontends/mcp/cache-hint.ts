import { EVERYONE } from "../../auth/token-book.js";
import type { CacheHint, Principal } from "../../contract/router.js";

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
  if (hints.length === 0) return {};
  let ttlMs = Infinity;
  let shared = principal.id === EVERYONE.id;
  for (const hint of hints) {
    if (hint === undefined) return {};
    ttlMs = Math.min(ttlMs, hint.ttlMs);
    shared &&= hint.cacheScope === "public";
  }
  return { ttlMs, cacheScope: shared ? "public" : "private" };
}
