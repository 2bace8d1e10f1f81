import type { Link } from "../chain.js";
import { redactResult, SENSITIVE_KEYS } from "./redact.js";

/**
 * Removes sensitive keys (those of the eMCP contract and the config's
 * `redact`) at any depth from every result, JSON inside text parts included,
 * before any limit measures it.
 *
 * @example
 * compose([redact(["api_key"])], callSource)
 */
export function redact(extraKeys: readonly string[] = []): Link {
  const keys = new Set([...SENSITIVE_KEYS, ...extraKeys].map((k) => k.toLowerCase()));
  return async function redactLink(call, next) {
    return redactResult(await next(call), keys);
  };
}
