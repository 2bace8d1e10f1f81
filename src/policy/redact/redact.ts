import { BrokerError } from "../../contract/errors.js";

/** Keys the eMCP contract says must never be returned. */
export const SENSITIVE_KEYS = [
  "password",
  "cachepwd",
  "verified_key",
  "refresh_token",
  "access_token",
  "sessionid",
];

/**
 * Deeper than any real result; a result nested deeper cannot be checked for
 * secrets without risking the stack, so it is not passed on.
 */
const MAX_DEPTH = 512;

/**
 * A JSON value without the given keys (compared without case), at any depth;
 * a string holding a JSON object or array is redacted too. What holds nothing
 * to remove is returned as it came (the same object, the same text).
 */
export function redactValue(value: unknown, keys: ReadonlySet<string>, path: string): unknown {
  return redactAt(value, keys, path, 0);
}

function redactAt(value: unknown, keys: ReadonlySet<string>, path: string, depth: number): unknown {
  if (typeof value === "string") return redactText(value, keys, path, depth);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) throw tooDeep(path);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const redacted = redactAt(item, keys, path, depth + 1);
      changed ||= redacted !== item;
      return redacted;
    });
    return changed ? out : value;
  }
  let out: Record<string, unknown> | undefined;
  const entries = Object.entries(value);
  for (const [i, [k, v]] of entries.entries()) {
    const removed = keys.has(k.toLowerCase());
    const redacted = removed ? undefined : redactAt(v, keys, path, depth + 1);
    if (out === undefined && (removed || redacted !== v))
      out = Object.fromEntries(entries.slice(0, i));
    if (out !== undefined && !removed) out[k] = redacted;
  }
  return out ?? value;
}

/** JSON held in a string is redacted, and written back in the same layout. */
function redactText(text: string, keys: ReadonlySet<string>, path: string, depth: number): string {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const redacted = redactAt(parsed, keys, path, depth);
  if (redacted === parsed) return text;
  return JSON.stringify(redacted, null, text.includes("\n") ? 2 : undefined);
}

function tooDeep(path: string): BrokerError {
  return new BrokerError(
    "execution_failed",
    `the result of ${path} nests more than ${MAX_DEPTH} levels deep, too deep to check for sensitive keys; it was not passed on`,
    { path, max_depth: MAX_DEPTH },
  );
}
