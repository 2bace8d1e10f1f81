/**
 * Waiting work, taken in turns between callers: each caller's items in the
 * order they came, the callers round-robin, so one caller with many items
 * waits behind its own, not in front of everyone else's. Bounded per caller
 * and in all.
 */
export class FairQueue<T> {
  /** Callers with waiting items, in turn order; a Map keeps insertion order. */
  private readonly waiting = new Map<string, T[]>();
  private total = 0;

  constructor(
    private readonly maxPerCaller: number,
    private readonly maxTotal: number,
  ) {}

  get size(): number {
    return this.total;
  }

  /** How many items a caller has waiting. */
  waitingFor(caller: string): number {
    return this.waiting.get(caller)?.length ?? 0;
  }

  /** Adds an item at the end of the caller's line; `false` (nothing added) when a bound is reached. */
  push(caller: string, item: T): boolean {
    const line = this.waiting.get(caller);
    if ((line?.length ?? 0) >= this.maxPerCaller || this.total >= this.maxTotal) return false;
    if (line) line.push(item);
    else this.waiting.set(caller, [item]);
    this.total++;
    return true;
  }

  /** Takes an item out wherever it is (its caller gave up); false if it was not waiting. */
  remove(caller: string, item: T): boolean {
    const line = this.waiting.get(caller);
    const at = line?.indexOf(item) ?? -1;
    if (!line || at < 0) return false;
    line.splice(at, 1);
    if (line.length === 0) this.waiting.delete(caller);
    this.total--;
    return true;
  }

  /**
   * The first item of the next caller in turn that `eligible` accepts; that
   * caller goes to the back of the turn order.
   */
  take(
    eligible: (caller: string) => boolean = () => true,
  ): { caller: string; item: T } | undefined {
    for (const [caller, line] of this.waiting) {
      if (!eligible(caller)) continue;
      const item = line.shift()!;
      this.waiting.delete(caller);
      if (line.length > 0) this.waiting.set(caller, line);
      this.total--;
      return { caller, item };
    }
    return undefined;
  }
}
