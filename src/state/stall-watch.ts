/**
 * Notices a connection that takes commands and answers none (a paused or
 * failing-over Redis, a partition that sends no reset): when commands have
 * waited `limitMs` without a single answer, `onStall` runs, once per stall.
 * One timer for the connection, checked a few times per `limitMs`, not one
 * per command: ioredis's `commandTimeout` arms and clears a timer for every
 * command, 10 to 15 µs of a call's p50 here (paired in one run, see
 * BENCHMARKS), for a round trip whose whole cost is 140 to 170.
 *
 * A connection answers in order, so "no answer for `limitMs` while one is
 * owed" is the same test as "the oldest command has waited `limitMs`".
 *
 * @example
 * const watch = new StallWatch(2000, () => redis.disconnect(true));
 * watch.sent();
 * try { await redis.get(key); } finally { watch.answered(); }
 */
export class StallWatch {
  private owed = 0;
  /** When the connection last answered, or began to owe an answer. */
  private lastProgress = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly limitMs: number,
    private readonly onStall: (waitedMs: number) => void,
  ) {
    this.timer = setInterval(() => this.check(), limitMs / 4);
    this.timer.unref();
  }

  /** A command went out. */
  sent(): void {
    if (this.owed++ === 0) this.lastProgress = performance.now();
  }

  /** A command was answered, or failed. */
  answered(): void {
    this.owed--;
    this.lastProgress = performance.now();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    if (this.owed === 0) return;
    const waited = performance.now() - this.lastProgress;
    if (waited < this.limitMs) return;
    // Counted from now: the commands onStall fails are answered (with an error) soon after.
    this.lastProgress = performance.now();
    this.onStall(waited);
  }
}
