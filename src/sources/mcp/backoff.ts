/** Restart delays: 250 ms doubling to 30 s; a backend that stayed up 30 s starts over. */
export class Backoff {
  private attempt = 0;
  private upSince = 0;

  constructor(
    private readonly firstMs = 250,
    private readonly maxMs = 30_000,
  ) {}

  markUp(now = Date.now()): void {
    this.upSince = now;
  }

  nextDelay(now = Date.now()): number {
    if (this.upSince > 0 && now - this.upSince >= this.maxMs) this.attempt = 0;
    this.upSince = 0;
    const delay = Math.min(this.maxMs, this.firstMs * 2 ** this.attempt);
    this.attempt += 1;
    return delay;
  }
}
