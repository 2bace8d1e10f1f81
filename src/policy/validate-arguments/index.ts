import { BrokerError } from "../../contract/errors.js";
import type { ToolEntry } from "../../tree/tree.js";
import { typescriptSignature } from "../../tree/typescript-declarations.js";
import type { Link } from "../link.js";

/** The longest declaration an error carries: past it, `meta_desc` is the place to read it. */
const MAX_DECLARATION_CHARS = 2000;

/**
 * Refuses a request whose arguments cannot be right, before the source sees
 * it: a tool call whose arguments do not fit the tool's `inputSchema` (the
 * `args_schema` that `meta_desc` shows), naming each argument and what is
 * wrong, with the tool's TypeScript declaration in `details.declaration`
 * (a model that called without describing can retry in one step); a
 * resource request whose `uri` is not an absolute URI (RFC 3986), which a
 * backend would otherwise fail on in its own way.
 *
 * @example
 * compose([validateArguments()], callSource)
 */
export function validateArguments(): Link {
  return async function validateArgumentsLink(request, next) {
    switch (request.kind) {
      case "tools/call":
        try {
          request.leaf.validateArgs(request.args);
        } catch (err) {
          throw withDeclaration(err, request.leaf);
        }
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

/** An arguments error with what the tool takes, where that is short enough to carry. */
function withDeclaration(err: unknown, leaf: ToolEntry): unknown {
  if (!(err instanceof BrokerError) || err.kind !== "invalid_params") return err;
  const declaration = typescriptSignature(leaf);
  if (declaration.length > MAX_DECLARATION_CHARS) return err;
  return new BrokerError(err.kind, err.message, { ...err.details, declaration });
}
