/**
 * Plain BM25 exactly as the public set's own baseline defines it, for a
 * floor measured in the same run: each tool's name plus description, camel
 * case split, lower case, split on what is not a letter or digit, its list of
 * English stop words removed, no stemming; k1 = 1.2, b = 0.75, idf =
 * ln(1 + (N − df + 0.5) / (df + 0.5)); ties broken by path.
 */
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";

const STOPWORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further had has have having
he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours ourselves out over own same she should so some such than that the their
theirs them themselves then there these they this those through to too under until up very was we were what when
where which while who whom why will with would you your yours yourself yourselves also please can't i'm i'd i'll
let's`.split(/\s+/),
);

export function baselineTokens(text: string): string[] {
  const split = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase();
  return (split.match(/[a-z0-9]+/g) ?? []).filter((t) => !STOPWORDS.has(t));
}

export function plainBm25(tools: readonly SearchableTool[], k1 = 1.2, b = 0.75) {
  const docs = tools.map((t) => baselineTokens(`${t.name} ${t.description}`));
  const avg = docs.reduce((a, d) => a + d.length, 0) / Math.max(1, docs.length);
  const postings = new Map<string, [number, number][]>();
  docs.forEach((doc, i) => {
    const tf = new Map<string, number>();
    for (const t of doc) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, c] of tf) {
      let list = postings.get(t);
      if (!list) postings.set(t, (list = []));
      list.push([i, c]);
    }
  });
  const n = docs.length;
  return (query: string, limit = 10): string[] => {
    const scores = new Map<number, number>();
    for (const t of new Set(baselineTokens(query))) {
      const list = postings.get(t);
      if (!list) continue;
      const idf = Math.log(1 + (n - list.length + 0.5) / (list.length + 0.5));
      for (const [i, c] of list) {
        const norm = c + k1 * (1 - b + (b * docs[i]!.length) / avg);
        scores.set(i, (scores.get(i) ?? 0) + (idf * c * (k1 + 1)) / norm);
      }
    }
    return [...scores]
      .map(([i, s]) => [tools[i]!.path, s] as const)
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, limit)
      .map(([path]) => path);
  };
}
