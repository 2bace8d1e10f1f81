/**
 * How many cases a property runs: a few hundred in the test suite (a fixed
 * seed keeps CI repeatable), and `FUZZ_FACTOR` times more (20 by default)
 * under `npm run fuzz`, which runs every test file that calls this.
 */
export function fuzzRuns(base: number): number {
  const factor = Number(process.env.FUZZ_FACTOR ?? 1);
  return Math.max(1, Math.round(base * (Number.isFinite(factor) ? factor : 1)));
}
