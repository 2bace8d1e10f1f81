import type { Link } from "../link.js";

/**
 * Refuses a tool call whose arguments do not fit the tool's `inputSchema`
 * (the `args_schema` that `meta_desc` shows), naming each argument and what is
 * wrong, before the backend sees it. Other requests pass untouched.
 *
 * @example
 * compose([validateArguments()], callSource)
 */
export function validateArguments(): Link {
  return async function validateArgumentsLink(request, next) {
    if (request.kind === "tools/call") request.leaf.validateArgs(request.args);
    return next(request);
  };
}
