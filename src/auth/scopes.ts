import picomatch from "picomatch";
import type { Principal } from "../contract/router.js";
import { SCOPE_ACTIONS, type ScopeAction } from "../config/schema.js";

interface CompiledScope {
  readonly action: ScopeAction | "*";
  readonly matches: (path: string) => boolean;
  /** The glob's fixed leading part: what lies above it must be visible to reach it. */
  readonly base: string;
}

const compiled = new WeakMap<Principal, CompiledScope[]>();

function scopesOf(principal: Principal): CompiledScope[] {
  let scopes = compiled.get(principal);
  if (!scopes) {
    scopes = principal.scopes.map((scope) => {
      const at = scope.indexOf(":");
      const glob = scope.slice(at + 1);
      return {
        action: scope.slice(0, at) as ScopeAction | "*",
        matches: picomatch(glob, { dot: true }),
        base: picomatch.scan(glob).base,
      };
    });
    compiled.set(principal, scopes);
  }
  return scopes;
}

/** Whether the principal may do `action` on exactly this path. */
export function allows(principal: Principal, action: ScopeAction, path: string): boolean {
  return scopesOf(principal).some(
    (s) => (s.action === action || s.action === "*") && s.matches(path),
  );
}

/**
 * Whether the principal may see a node on the way to something it may do:
 * the path is in scope, a scope's glob lies below it, or it lies below the
 * fixed part of a scope's glob (what is under it is then filtered again).
 */
export function reaches(principal: Principal, action: ScopeAction, path: string): boolean {
  if (allows(principal, action, path)) return true;
  const prefix = path === "/" ? "/" : `${path}/`;
  return scopesOf(principal).some(
    (s) =>
      (s.action === action || s.action === "*") &&
      (s.base === "" ||
        s.base === "/" ||
        s.base === path ||
        s.base.startsWith(prefix) ||
        path.startsWith(`${s.base}/`)),
  );
}

/**
 * Whether the principal may know that something is at `path`: some scope of
 * any action reaches it. What it may not know exists is answered exactly as
 * what does not exist, so no answer tells the two apart.
 */
export function sees(principal: Principal, path: string): boolean {
  return SCOPE_ACTIONS.some((action) => reaches(principal, action, path));
}

/** Every scope: the principal of the shared secret, of stdio, and of a broker without auth. */
export const ALL_SCOPES: readonly string[] = ["*:/**"];
