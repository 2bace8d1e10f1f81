import type { EntrySummary } from "./answers.js";

/** The longest piece of a summary a listing keeps. */
const SUMMARY_CHARS = 60;

/**
 * Shorter pieces tried, in turn, for every entry at once: the start of each
 * summary tells a model more than a few whole ones beside bare names.
 */
const SHORTER_SUMMARIES = [40, 28, 20];

/**
 * What is behind the meta tools, for their descriptions: the top-level
 * entries the caller may see, each with the start of its summary where room
 * allows, within `maxBytes` of UTF-8, and how many did not fit. Models pick
 * a tool whose description says when to use it; "find tools by what they do"
 * alone says nothing of what there is.
 *
 * @example
 * topNodesText([{ name: "cms", summary: "Site content", … }], 200)
 * // "Holds: cms (Site content)."
 */
export function topNodesText(
  entries: readonly Pick<EntrySummary, "name" | "summary">[],
  maxBytes: number,
  withSummaries = true,
): string {
  if (entries.length === 0) return "";
  if (withSummaries) {
    for (const chars of [SUMMARY_CHARS, ...SHORTER_SUMMARIES]) {
      const every = render(
        entries.map((entry) => withSummary(entry.name, shortSummary(entry.summary, chars))),
        0,
      );
      if (bytes(every) <= maxBytes) return every;
    }
  }
  const parts: string[] = [];
  const fits = (candidate: string[], left: number) => bytes(render(candidate, left)) <= maxBytes;
  for (const [i, entry] of entries.entries()) {
    const left = entries.length - i - 1;
    const full = withSummary(entry.name, withSummaries ? shortSummary(entry.summary) : "");
    if (fits([...parts, full], left)) parts.push(full);
    else if (fits([...parts, entry.name], left)) parts.push(entry.name);
    else break;
  }
  const text = render(parts, entries.length - parts.length);
  return bytes(text) <= maxBytes ? text : "";
}

function render(parts: readonly string[], more: number): string {
  const list = parts.join("; ");
  if (more === 0) return `Holds: ${list}.`;
  return parts.length === 0 ? `Holds ${more} nodes.` : `Holds: ${list}; and ${more} more.`;
}

function withSummary(name: string, summary: string): string {
  return summary ? `${name} (${summary})` : name;
}

/** A summary's first clause, cut at a word within `chars`. */
function shortSummary(summary: string | undefined, chars = SUMMARY_CHARS): string {
  const clause = (summary ?? "")
    .split(/(?<=[.;:])\s|\n/)[0]!
    .replace(/[.;:]$/, "")
    .trim();
  if (clause.length <= chars) return clause;
  const cut = clause.slice(0, chars);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), Math.floor(chars / 3))).replace(/[\s,;:]+$/, "")}…`;
}

function bytes(text: string): number {
  return Buffer.byteLength(text);
}
