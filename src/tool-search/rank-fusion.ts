/** The constant of reciprocal rank fusion: ranks past a few dozen hardly count. */
const K = 60;

/** One ranking to fuse, best first, and how much it counts (1: as much as any other). */
export interface Ranking {
  readonly paths: readonly string[];
  readonly weight: number;
}

/**
 * Weighted reciprocal rank fusion (Cormack et al., 2009): each ranking gives
 * a path weight/(K + rank); a path high in both beats one at the top of only
 * one. It needs no calibration between the rankings' scores, which BM25 and
 * cosine similarity do not share; the weight says how far a ranking is
 * trusted (a small local model's, less than the words').
 */
export function fuseRanks(rankings: readonly Ranking[]): { path: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const { paths, weight } of rankings) {
    paths.forEach((path, rank) =>
      scores.set(path, (scores.get(path) ?? 0) + weight / (K + rank + 1)),
    );
  }
  return [...scores]
    .map(([path, score]) => ({ path, score }))
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : 1));
}
