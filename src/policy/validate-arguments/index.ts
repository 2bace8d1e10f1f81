import { BrokerError } from "../../contract/errors.js";
import type { Link } from "../link.js";

/**
 * Refuses a request whose arguments cannot be right, before the source sees
 * it: a tool call whose arguments do not fit the tool's `inputSchema` (the
 * `args_schema` that `meta_desc` shows), naming each argument and what is
 * wrong; a resource request whose `uri` is not an absolute URI (RFC 3986),
 * which a backend would otherwise fail on in its own way.
 *
 * @example
 * compose([validateArguments()], callSource)
 */
export function validateArguments(): Link {
  return async function validateArgumentsLink(request, next) {
    switch (request.kind) {
      case "tools/call":
        request.leaf.validateArgs(request.args);
        break;
      case "resources/read":
      case "resources/subscribe":
      case "resources/unsubscribe":
        if (!URL.canParse(request.params.uri)) {
          throw new BrokerError(
            "invalid_params",
            `resource URI ${JSON.stringify(request.params.uri)} is not an absolute URI such as file:///notes.txt; resources/list shows the URIs there are`,
            { uri: request.params.uri },
          );
        }
    }
    return next(request);
  };
}
