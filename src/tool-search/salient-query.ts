/** A run of this many characters without a space is data (base64, a hash, a URL), not words. */
const LONGEST_WORD = 64;

export interface SalientQuery {
  readonly text: string;
  /** Said when the text is not the whole request. */
  readonly notice?: string;
}

/**
 * The part of a long request that says what tool it needs, at most `max`
 * characters: a task with a pasted document or an image in base64 is
 * searched on its words, not refused. Runs of characters without a space
 * are dropped first; what is still too long keeps its beginning and its end,
 * where a request says what it wants, cut between words.
 *
 * @example
 * salientQuery(`summarize this: ${"QUJD".repeat(5000)} and mail it`, 1000).text
 * // "summarize this: and mail it"
 */
export function salientQuery(query: string, max: number): SalientQuery {
  if (query.length <= max) return { text: query };
  const words = query
    .split(/\s+/u)
    .filter((word) => word.length > 0 && word.length < LONGEST_WORD)
    .join(" ");
  const dropped = words.length < query.replace(/\s+/gu, " ").trim().length;
  const data = dropped ? ", without runs of characters that are no words (such as base64)" : "";
  if (words.length <= max)
    return {
      text: words,
      notice: `the query has ${query.length} characters: searched on its words${data}`,
    };
  // Two halves and the space between them.
  const half = Math.floor((max - 1) / 2);
  const head = words.slice(0, half).replace(/\s+\S*$/u, "");
  const tail = words.slice(words.length - half).replace(/^\S*\s+/u, "");
  return {
    text: `${head} ${tail}`,
    notice: `the query has ${query.length} characters: searched on its first and last ${half}${data}`,
  };
}
