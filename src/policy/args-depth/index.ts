import { BrokerError } from "../../contract/errors.js";
import { nestsDeeperThan } from "../../contract/json-depth.js";
import { argumentsOf, type Link } from "../link.js";

/**
 * Refuses a request whose arguments nest objects and arrays deeper than
 * `max_args_depth` (default 64) as invalid params, before any link that walks
 * them recursively (validation, size, digests, the backend's own encoder) can
 * overflow its stack. The walk itself uses no recursion and stops one level
 * past the limit.
 *
 * @example
 * compose([argsDepth()], callSource)
 */
export function argsDepth(): Link {
  return async function argsDepthLink(request, next) {
    const max = request.limits.max_args_depth;
    if (nestsDeeperThan(argumentsOf(request), max)) {
      throw new BrokerError(
        "invalid_params",
        `the arguments of ${request.path} are nested more than ${max} levels deep (max_args_depth); flatten them`,
        { path: request.path, max_args_depth: max },
      );
    }
    return next(request);
  };
}
