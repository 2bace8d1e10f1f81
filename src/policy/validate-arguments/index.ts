import type { Link } from "../chain.js";

/**
 * Refuses a call whose arguments do not fit the tool's `inputSchema` (the
 * `args_schema` that `meta_desc` shows), naming each argument and what is
 * wrong, before the backend sees it.
 *
 * @example
 * compose([validateArguments()], callSource)
 */
export function validateArguments(): Link {
  return async function validateArgumentsLink(call, next) {
    call.leaf.validateArgs(call.args);
    return next(call);
  };
}
