import { allows } from "../../auth/scopes.js";
import { BrokerError } from "../../contract/errors.js";
import type { Link } from "../chain.js";

/**
 * Refuses a call the caller's token has no `call:` scope for, with `forbidden`
 * (HTTP 403), naming the token and the path.
 *
 * @example
 * compose([authorize()], callSource)
 */
export function authorize(): Link {
  return async function authorizeLink(call, next) {
    const { principal } = call.ctx;
    if (!allows(principal, "call", call.path)) {
      throw new BrokerError(
        "forbidden",
        `token "${principal.id}" may not call ${call.path}: no call scope matches it`,
        {
          path: call.path,
          token: principal.id,
        },
      );
    }
    return next(call);
  };
}
