import type { EntrySummary } from "./answers.js";

/** The longest piece of a summary a listing keeps. */
const SUMMARY_CHARS = 60;

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
  const parts: string[] = [];
  const fits = (candidate: string[], left: number) => bytes(render(candidate, left)) <= maxBytes;
  for (const [i, entry] of entries.entries()) {
    const left = entries.length - i - 1;
    const summary = withSummaries ? shortSummary(entry.summary) : "";
    const full = summary ? `${entry.name} (${summary})` : entry.name;
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

/** A summary's first clause, cut at a word within the limit. */
function shortSummary(summary: string | undefined): string {
  const clause = (summary ?? "")
    .split(/(?<=[.;:])\s|\n/)[0]!
    .replace(/[.;:]$/, "")
    .trim();
  if (clause.length <= SUMMARY_CHARS) return clause;
  const cut = clause.slice(0, SUMMARY_CHARS);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), 20)).trimEnd()}…`;
}

function bytes(text: string): number {
  return Buffer.byteLength(text);
}
