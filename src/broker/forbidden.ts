import type { ScopeAction } from "../config/schema.js";
import { BrokerError } from "../contract/errors.js";
import type { Principal } from "../contract/router.js";

/**
 * The refusal of an action at a path, naming the token and the scope it
 * lacks (`details.scope`, which an OAuth step-up challenge turns into the
 * token scopes to ask for).
 */
export function forbidden(principal: Principal, action: ScopeAction, path: string): BrokerError {
  return new BrokerError(
    "forbidden",
    `token "${principal.id}" may not ${action} ${path}: no ${action} scope reaches it`,
    { path, token: principal.id, scope: `${action}:${path}` },
  );
}
