/**
 * How many cases a property runs: a few hundred in the test suite (a fixed
 * seed keeps CI repeatable), and `FUZZ_RUNS` times more under `npm run fuzz`.
 */
export function fuzzRuns(base: number): number {
  const factor = Number(process.env.FUZZ_FACTOR ?? 1);
  return Math.max(1, Math.round(base * (Number.isFinite(factor) ? factor : 1)));
}
