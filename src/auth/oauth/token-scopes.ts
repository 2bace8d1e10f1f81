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

/**
 * The broker scopes of a token's scopes: each one mapped; with `literal`,
 * also one written as a broker scope, as itself. Off by default: an identity
 * provider may let users or clients ask for any scope string, and one spelt
 * `admin:/**` must not grant what it says unless the operator chose that.
 */
export function brokerScopes(scopes: readonly string[], map: ScopeMap, literal = false): string[] {
  const granted = new Set<string>();
  for (const scope of scopes) {
    if (Object.hasOwn(map, scope)) for (const s of map[scope]!) granted.add(s);
    else if (literal && SCOPE_PATTERN.test(scope)) granted.add(scope);
  }
  return [...granted];
}

/**
 * The token scopes that would let a caller do `action` on `path`, for a
 * step-up challenge: the mapped scopes that grant it, else (with `literal`)
 * the broker scope itself, which a token may then carry as it is.
 */
export function scopesGranting(
  action: ScopeAction,
  path: string,
  map: ScopeMap,
  literal = false,
): string[] {
  const granting = Object.entries(map)
    .filter(([, scopes]) => allows({ id: "", scopes }, action, path))
    .map(([scope]) => scope);
  return granting.length > 0 || !literal ? granting : [`${action}:${path}`];
}
