import { policyEvent } from "../../telemetry/mcp-operation.js";
import type { Link, Result } from "../link.js";
import { redactValue, SENSITIVE_KEYS } from "./redact.js";

/**
 * Removes sensitive keys (those of the eMCP contract and the config's
 * `redact`) at any depth from the result of every kind of request (a tool's
 * content and structured content, a resource's contents, a prompt's
 * messages, completion values, list entries), JSON inside strings included,
 * before any limit measures it.
 *
 * @example
 * compose([redact(["api_key"])], callSource)
 */
export function redact(extraKeys: readonly string[] = []): Link {
  const keys = new Set([...SENSITIVE_KEYS, ...extraKeys].map((k) => k.toLowerCase()));
  return async function redactLink(request, next) {
    const result = await next(request);
    const redacted = redactValue(result, keys, request.path) as Result;
    // What holds nothing to remove comes back as the same object.
    if (redacted !== result) {
      policyEvent("mcp_broker.redaction", { removed: true });
      request.ctx.redacted?.();
    }
    return redacted;
  };
}
