import { allows, reaches } from "../../auth/scopes.js";
import type { ScopeAction } from "../../config/schema.js";
import { BrokerError } from "../../contract/errors.js";
import type { Link, RequestKind } from "../link.js";

/** What each kind of request needs, and how a refusal names it. */
const NEEDS: Record<RequestKind, { action: ScopeAction; what: string; reach?: true }> = {
  "tools/call": { action: "call", what: "call" },
  "resources/list": { action: "describe", what: "list the resources of", reach: true },
  "resources/templates/list": {
    action: "describe",
    what: "list the resource templates of",
    reach: true,
  },
  "prompts/list": { action: "describe", what: "list the prompts of", reach: true },
  "resources/read": { action: "call", what: "read the resources of" },
  "resources/subscribe": { action: "call", what: "subscribe to the resources of" },
  "resources/unsubscribe": { action: "call", what: "unsubscribe from the resources of" },
  "prompts/get": { action: "call", what: "get the prompts of" },
  "completion/complete": { action: "call", what: "complete arguments of" },
  "logging/setLevel": { action: "call", what: "set the log level of" },
};

/**
 * Refuses a request the caller's token has no scope for, with `forbidden`
 * (HTTP 403), naming the token and the path. A tool call needs a `call:`
 * scope matching its leaf; reading a resource, getting a prompt, completing,
 * subscribing or setting the log level needs a `call:` scope matching the
 * source's node; listing a source's resources or prompts needs a `describe:`
 * scope that reaches its node.
 *
 * @example
 * compose([authorize()], callSource)
 */
export function authorize(): Link {
  return async function authorizeLink(request, next) {
    const { principal } = request.ctx;
    const { action, what, reach } = NEEDS[request.kind];
    const permitted = reach
      ? reaches(principal, action, request.path)
      : allows(principal, action, request.path);
    if (!permitted) {
      throw new BrokerError(
        "forbidden",
        `token "${principal.id}" may not ${what} ${request.path}: no ${action} scope ${reach ? "reaches" : "matches"} it`,
        { path: request.path, token: principal.id, scope: `${action}:${request.path}` },
      );
    }
    return next(request);
  };
}
