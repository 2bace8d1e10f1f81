/** Side-by-side latency and throughput of call targets, in interleaved rounds. */
import { cpuSeconds } from "./process-cpu.js";
import { concurrent, median, sequential } from "./stats.js";

export const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2000);
export const CLIENTS = 16;
export const PER_CLIENT = Number(process.env.BENCH_PER_CLIENT ?? 250);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

export type Row = { name: string; p50: number; p99: number; throughput: number; cpuUs: number[] };

export type Target = {
  name: string;
  makeCall: () => Promise<() => Promise<unknown>>;
  /** Server-side processes whose CPU time per call is reported. */
  pids?: () => number[];
};

/**
 * Latency and throughput in ROUNDS rounds that visit the targets in turn (the
 * sequential calls of a round split between them), the median kept, so that a
 * noisy moment on a shared machine does not land on one target only.
 */
export async function measureAll(targets: Target[]): Promise<Row[]> {
  const ones: (() => Promise<unknown>)[] = [];
  const pools: (() => Promise<unknown>)[][] = [];
  for (const { makeCall } of targets) {
    const one = await makeCall();
    await sequential(one, 200);
    ones.push(one);
    const many = await Promise.all(Array.from({ length: CLIENTS }, makeCall));
    await concurrent(many, 20);
    pools.push(many);
  }
  const latencies = targets.map((): { p50: number; p99: number }[] => []);
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, one] of ones.entries())
      latencies[i]!.push(await sequential(one, Math.ceil(SEQUENTIAL / ROUNDS)));
  const samples = targets.map((): number[] => []);
  const cpu = targets.map((t) => (t.pids?.() ?? []).map(() => 0));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, many] of pools.entries()) {
      const pids = targets[i]!.pids?.() ?? [];
      const before = pids.map(cpuSeconds);
      samples[i]!.push(await concurrent(many, PER_CLIENT));
      pids.forEach((pid, j) => (cpu[i]![j]! += cpuSeconds(pid) - before[j]!));
    }
  }
  const calls = ROUNDS * CLIENTS * PER_CLIENT;
  return targets.map((t, i) => ({
    name: t.name,
    p50: median(latencies[i]!.map((l) => l.p50)),
    p99: median(latencies[i]!.map((l) => l.p99)),
    throughput: median(samples[i]!),
    cpuUs: cpu[i]!.map((seconds) => (seconds / calls) * 1e6),
  }));
}
