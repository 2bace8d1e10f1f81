import { createHash } from "node:crypto";
import { configure } from "safe-stable-stringify";

/**
 * Deeper than any arguments the broker accepts (`max_args_depth` is at most
 * 1000): what lies below is written as a marker, so a digest of hostile input
 * is still computed, without recursing without end.
 */
const MAX_DEPTH = 1001;

/** JSON with object keys sorted at every depth, so equal values serialize equally. */
export const canonicalJson: (value: unknown) => string | undefined = configure({
  deterministic: true,
  maximumDepth: MAX_DEPTH,
  bigint: true,
});

/** SHA-256 hex of a value's canonical JSON: for comparing payloads without keeping them. */
export function digestOf(value: unknown): string {
  return createHash("sha256")
    .update(canonicalJson(value) ?? "")
    .digest("hex");
}
