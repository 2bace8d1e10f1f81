import { BrokerError } from "../../contract/errors.js";
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
    if (exceeds(argumentsOf(request), max)) {
      throw new BrokerError(
        "invalid_params",
        `the arguments of ${request.path} are nested more than ${max} levels deep (max_args_depth); flatten them`,
        { path: request.path, max_args_depth: max },
      );
    }
    return next(request);
  };
}

/** Whether objects and arrays in `value` nest more than `max` levels. */
function exceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [item, depth] = top;
    if (item === null || typeof item !== "object") continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}
