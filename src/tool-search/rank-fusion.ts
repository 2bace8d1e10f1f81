/** The constant of reciprocal rank fusion: ranks past a few dozen hardly count. */
const K = 60;

/**
 * Reciprocal rank fusion (Cormack et al., 2009): each list gives a path
 * 1/(K + rank); a path high in both lists beats one at the top of only one.
 * It needs no calibration between the lists' scores, which BM25 and cosine
 * similarity do not share.
 */
export function fuseRanks(
  lists: readonly (readonly string[])[],
): { path: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) {
    list.forEach((path, rank) => scores.set(path, (scores.get(path) ?? 0) + 1 / (K + rank + 1)));
  }
  return [...scores]
    .map(([path, score]) => ({ path, score }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
}
