/**
 * The measures of tool retrieval the issue asks for, over one ranking per
 * query: recall@k (a correct tool among the first k), nDCG@5 with every
 * correct tool equally relevant, and for a task that needs several tools,
 * whether one of them is in the first ten.
 */
export interface Judged {
  /** Paths, best first. */
  readonly ranked: readonly string[];
  /** The paths that answer the query. */
  readonly correct: readonly string[];
}

export function recallAt(k: number, { ranked, correct }: Judged): number {
  return ranked.slice(0, k).some((p) => correct.includes(p)) ? 1 : 0;
}

export function ndcgAt(k: number, { ranked, correct }: Judged): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((p, i) => {
    if (correct.includes(p)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, correct.length); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/** The share of the needed tools found in the first k. */
export function coverageAt(k: number, { ranked, correct }: Judged): number {
  const top = new Set(ranked.slice(0, k));
  return correct.filter((p) => top.has(p)).length / correct.length;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
