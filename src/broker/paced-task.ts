/**
 * A task run on request, one run at a time, its pace set by its own cost:
 * after a run that took T ms, the next starts no sooner than `spacing × T` ms
 * later, and every request made meanwhile is served by that one run. So a
 * task that rebuilds everything, asked for again and again (a backend that
 * announces a change of its tools in a loop), takes at most 1 / (1 + spacing)
 * of the event loop, while a lone request runs at once. A run's failure is
 * its task's to report: the task should not throw.
 */
export class PacedTask {
  private running = false;
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private nextStart = 0;
  private stopped = false;
  private waiters: (() => void)[] = [];
  private inProgress: Promise<void> = Promise.resolve();

  constructor(
    private readonly task: () => Promise<void>,
    private readonly spacing: number,
  ) {}

  /** Asks for a run: now if the pace allows, else once it does. */
  request(): void {
    if (this.stopped) return;
    if (this.running) {
      this.pending = true;
      return;
    }
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => void this.run(), Math.max(0, this.nextStart - Date.now()));
  }

  /** Resolves once every request made so far has had its run. */
  settled(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /**
   * For a caller about to do the task's work itself: drops the run waiting
   * for its turn, if one is, and resolves once the run in progress, if one
   * is, is over.
   */
  skipWaiting(): Promise<void> {
    this.pending = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.idle()) this.wake();
    return this.inProgress;
  }

  /** No more runs; one in progress finishes. */
  stop(): void {
    this.stopped = true;
    this.pending = false;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.running) this.wake();
  }

  private idle(): boolean {
    return !this.running && !this.pending && this.timer === undefined;
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    const started = performance.now();
    this.inProgress = (async () => {
      try {
        await this.task();
      } catch {
        // Reported by the task itself.
      }
    })();
    await this.inProgress;
    this.running = false;
    this.nextStart = Date.now() + this.spacing * (performance.now() - started);
    if (this.pending) {
      this.pending = false;
      this.request();
    }
    if (this.idle()) this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
