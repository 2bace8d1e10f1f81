/** Latency percentiles and throughput from raw samples. */
export interface Measure {
  p50: number;
  p99: number;
  throughput: number;
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor((p / 100) * sortedMs.length))]!;
}

/** The middle value: what several rounds on a noisy machine agree on. */
export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** Runs `call` `count` times one after another; p50 and p99 in ms. */
export async function sequential(
  call: () => Promise<unknown>,
  count: number,
): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await call();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
}

/** `calls.length` clients each calling `perClient` times in a loop; calls per second overall. */
export async function concurrent(
  calls: (() => Promise<unknown>)[],
  perClient: number,
): Promise<number> {
  const t = performance.now();
  await Promise.all(
    calls.map(async (call) => {
      for (let i = 0; i < perClient; i++) await call();
    }),
  );
  return (calls.length * perClient) / ((performance.now() - t) / 1000);
}
