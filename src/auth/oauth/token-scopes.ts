import type { JWTPayload } from "jose";
import { SCOPE_PATTERN, type ScopeAction } from "../../config/schema.js";
import { allows } from "../scopes.js";

/** The broker scopes each token scope grants (the config's `scope_map`). */
export type ScopeMap = Readonly<Record<string, readonly string[]>>;

/**
 * The scopes a token carries: in `claim` (a dotted path, such as Keycloak's
 * `realm_access.roles`) when given, else in `scope` (RFC 9068, space-separated)
 * or `scp` (Entra, a string or an array).
 */
export function tokenScopes(payload: JWTPayload, claim?: string): string[] {
  const value = claim === undefined ? (payload.scope ?? payload.scp) : valueAt(payload, claim);
  if (typeof value === "string") return value.split(" ").filter((s) => s !== "");
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === "string");
  return [];
}

function valueAt(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The broker scopes of a token's scopes: each one mapped, or itself where it is a broker scope. */
export function brokerScopes(scopes: readonly string[], map: ScopeMap): string[] {
  const granted = new Set<string>();
  for (const scope of scopes) {
    if (Object.hasOwn(map, scope)) for (const s of map[scope]!) granted.add(s);
    else if (SCOPE_PATTERN.test(scope)) granted.add(scope);
  }
  return [...granted];
}

/**
 * The token scopes that would let a caller do `action` on `path`, for a
 * step-up challenge: the mapped scopes that grant it, else the broker scope
 * itself (which a token may carry as it is).
 */
export function scopesGranting(action: ScopeAction, path: string, map: ScopeMap): string[] {
  const granting = Object.entries(map)
    .filter(([, scopes]) => allows({ id: "", scopes }, action, path))
    .map(([scope]) => scope);
  return granting.length > 0 ? granting : [`${action}:${path}`];
}
