/** Durations kept per source and second: enough for a p99 of a busy second, bounded memory. */
const SAMPLES_PER_SECOND = 256;

interface Second {
  calls: number;
  failed: number;
  /** A uniform sample of the second's call durations (ms), at most SAMPLES_PER_SECOND. */
  readonly durations: number[];
}

/** One point of a source's series: `step_s` seconds ending at `t`. */
export interface TrafficPoint {
  /** Epoch milliseconds at the end of the step. */
  readonly t: number;
  readonly calls_per_s: number;
  /** Calls that did not end `ok` (tool errors included). */
  readonly failed: number;
  readonly p50_ms: number | null;
  readonly p99_ms: number | null;
}

/**
 * Tool calls per second and their latency per source over the last minutes,
 * from the audit records, for the console's charts: a bucket per source and
 * second, older buckets dropped as new ones come.
 */
export class TrafficWindow {
  private readonly seconds = new Map<number, Map<string, Second>>();

  constructor(
    /** How far back the window reaches. */
    private readonly spanS = 300,
    private readonly now: () => number = Date.now,
  ) {}

  add(source: string, durationMs: number, ok: boolean): void {
    const second = Math.floor(this.now() / 1000);
    let sources = this.seconds.get(second);
    if (!sources) {
      sources = new Map();
      this.seconds.set(second, sources);
      this.drop(second - this.spanS);
    }
    let bucket = sources.get(source);
    if (!bucket) {
      bucket = { calls: 0, failed: 0, durations: [] };
      sources.set(source, bucket);
    }
    bucket.calls++;
    if (!ok) bucket.failed++;
    if (bucket.durations.length < SAMPLES_PER_SECOND) bucket.durations.push(durationMs);
    else {
      // Reservoir sampling: every call of the second equally likely to be kept.
      const at = Math.floor(Math.random() * bucket.calls);
      if (at < SAMPLES_PER_SECOND) bucket.durations[at] = durationMs;
    }
  }

  /** Each source's points, `stepS` seconds each, over the window, oldest first. */
  series(stepS = 5): Record<string, TrafficPoint[]> {
    const end = Math.floor(this.now() / 1000);
    this.drop(end - this.spanS);
    const steps = Math.max(1, Math.floor(this.spanS / stepS));
    const first = end - steps * stepS + 1;
    const out: Record<string, TrafficPoint[]> = {};
    const sources = new Set<string>();
    for (const bySource of this.seconds.values()) for (const s of bySource.keys()) sources.add(s);
    for (const source of [...sources].sort()) {
      const points: TrafficPoint[] = [];
      for (let step = 0; step < steps; step++) {
        const from = first + step * stepS;
        let calls = 0;
        let failed = 0;
        const durations: number[] = [];
        for (let s = from; s < from + stepS; s++) {
          const bucket = this.seconds.get(s)?.get(source);
          if (!bucket) continue;
          calls += bucket.calls;
          failed += bucket.failed;
          durations.push(...bucket.durations);
        }
        durations.sort((a, b) => a - b);
        points.push({
          t: (from + stepS) * 1000,
          calls_per_s: calls / stepS,
          failed,
          p50_ms: percentile(durations, 0.5),
          p99_ms: percentile(durations, 0.99),
        });
      }
      out[source] = points;
    }
    return out;
  }

  private drop(before: number): void {
    for (const second of this.seconds.keys()) if (second <= before) this.seconds.delete(second);
  }
}

/** The nearest-rank percentile of sorted values, or null for none. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}
