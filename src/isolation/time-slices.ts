/**
 * Long work on the main thread cut into slices, with a turn of the event
 * loop between them, so that HTTP requests and the sources' pipes are served
 * meanwhile: a loop over many items awaits `next()` before each.
 *
 * @example
 * const slices = new TimeSlices(8);
 * for (const row of rows) {
 *   await slices.next();
 *   index.put(row);
 * }
 */
export class TimeSlices {
  private ends: number;

  constructor(private readonly ms: number) {
    this.ends = performance.now() + ms;
  }

  /** Resolves at once within a slice; once it is spent, after the event loop had its turn. */
  async next(): Promise<void> {
    if (performance.now() < this.ends) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.ends = performance.now() + this.ms;
  }
}
