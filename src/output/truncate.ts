/**
 * `max_output_chars`: shortens a JSON value until its serialization fits,
 * keeping its structure. Long strings are cut first (all to one common length,
 * as long as the budget allows); if that is not enough, long lists are
 * compacted to their first items; only a value that cannot fit either way is
 * cut as text. A shortened value is returned inside an explicit wrapper.
 */

/** Strings are never cut below this; lists never below one item. */
const MIN_STRING = 16;

export interface TruncatedOutput {
  truncated: true;
  original_chars: number;
  max_output_chars: number;
  note: string;
  value: unknown;
}

export function truncateOutput(value: unknown, maxChars: number | undefined): unknown {
  if (maxChars === undefined) return value;
  const original = size(value);
  if (original <= maxChars) return value;
  return {
    truncated: true,
    original_chars: original,
    max_output_chars: maxChars,
    note: "output was shortened to fit max_output_chars; cut strings and lists say how much was left out",
    value: shorten(value, maxChars),
  } satisfies TruncatedOutput;
}

function shorten(value: unknown, max: number): unknown {
  const fits = (v: unknown) => size(v) <= max;
  const longest = longestString(value);
  const byStrings = largest(MIN_STRING, longest, (n) => fits(cap(value, n, Infinity)));
  if (byStrings !== null) return cap(value, byStrings, Infinity);

  const longestList = longestArray(value);
  const byItems = largest(1, longestList, (k) => fits(cap(value, MIN_STRING, k)));
  if (byItems !== null) {
    const strings = largest(MIN_STRING, longest, (n) => fits(cap(value, n, byItems))) ?? MIN_STRING;
    return cap(value, strings, byItems);
  }
  const text = JSON.stringify(value) ?? "";
  const kept = largest(0, text.length, (n) => fits(cutText(text, n))) ?? 0;
  return cutText(text, kept);
}

/** The largest n in [lo, hi] for which `ok(n)` holds, given `ok` is monotone; null if none. */
function largest(lo: number, hi: number, ok: (n: number) => boolean): number | null {
  if (hi < lo || !ok(lo)) return null;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function cutText(text: string, keep: number): string {
  return text.length <= keep ? text : `${text.slice(0, keep)}…[+${text.length - keep} chars]`;
}

function cap(value: unknown, maxString: number, maxItems: number): unknown {
  if (typeof value === "string") return cutText(value, maxString);
  if (Array.isArray(value)) {
    const kept = value.slice(0, maxItems).map((v) => cap(v, maxString, maxItems));
    if (value.length > maxItems) kept.push(`…[+${value.length - maxItems} items]`);
    return kept;
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = cap(v, maxString, maxItems);
    return out;
  }
  return value;
}

function longestString(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (value !== null && typeof value === "object") {
    let max = 0;
    for (const v of Object.values(value)) max = Math.max(max, longestString(v));
    return max;
  }
  return 0;
}

function longestArray(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let max = Array.isArray(value) ? value.length : 0;
  for (const v of Object.values(value)) max = Math.max(max, longestArray(v));
  return max;
}

function size(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}
