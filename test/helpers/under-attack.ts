import { readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";

export interface Watched<T> {
  readonly result: T;
  /** The slowest answer any probe had while the attack ran, in ms. */
  readonly slowestProbeMs: number;
  /** How many probes ran. */
  readonly probes: number;
  /** The broker's largest resident memory seen while the attack ran, in MiB. */
  readonly peakRssMb: number;
}

/** A process's resident memory in MiB, from /proc; 0 where it cannot be read. */
export function rssMb(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? 0 : Number(kb) / 1024;
  } catch {
    return 0;
  }
}

/**
 * Runs `attack` while `probe` (a second caller: `/healthz`, a `2 + 2`) is
 * asked again and again, one after the other, and the broker's memory is
 * read: what the issue means by "the broker stays responsive".
 */
export async function underAttack<T>(
  brokerPid: number,
  attack: () => Promise<T>,
  probe: () => Promise<unknown>,
): Promise<Watched<T>> {
  let done = false;
  let slowestProbeMs = 0;
  let probes = 0;
  let peakRssMb = rssMb(brokerPid);
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      await probe();
      slowestProbeMs = Math.max(slowestProbeMs, performance.now() - started);
      probes++;
      peakRssMb = Math.max(peakRssMb, rssMb(brokerPid));
      // A probe's cadence, not a wait for something to happen.
      await delay(50);
    }
  })();
  let result: T;
  try {
    result = await attack();
  } finally {
    done = true;
    await probing;
  }
  return { result, slowestProbeMs, probes, peakRssMb };
}

/** `/healthz` answers 200; throws otherwise, so a dead broker fails the probe. */
export async function healthy(url: string): Promise<void> {
  const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
}
