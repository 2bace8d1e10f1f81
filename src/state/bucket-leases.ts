import type { Bucket } from "./store.js";

/**
 * Tokens a lease takes at once: a thousandth of the burst, at least one. A
 * burst under 2,000 is counted call by call, exactly.
 */
export function leaseSize(bucket: Bucket): number {
  return Math.max(1, Math.floor(bucket.burst / 1000));
}

/** Buckets with a lease held at most; past this the least recently used lease is dropped. */
const MAX_HELD = 10_000;

/**
 * The tokens this instance took from shared buckets ahead of its calls, so
 * that most calls need no round trip to the shared store. Every token spent
 * here was taken from the shared bucket first, so the instances together
 * never admit more than the bucket's rate over time. At any moment each
 * holds at most one lease per bucket (one is asked for at a time: calls that
 * find none while it is on its way ask for their own token only), which
 * bounds how far a burst can be off, either way (see `leaseSize`).
 *
 * A lease is kept until it is spent, however long that takes: a lease that
 * lapsed would lose its tokens, and a bucket whose calls come seldom would
 * then be drained by leases instead of calls. Only past `maxHeld` buckets is
 * the least recently used lease dropped, tokens and all.
 */
export class BucketLeases {
  private readonly held = new Map<string, number>();
  private readonly asking = new Set<string>();

  constructor(private readonly maxHeld = MAX_HELD) {}

  /**
   * Takes one token from each bucket's lease where there is one; which
   * buckets gave one. Give them back with `refund` if the call is not
   * admitted after all.
   */
  take(buckets: readonly Bucket[]): boolean[] {
    return buckets.map((bucket) => {
      const kept = this.held.get(bucket.key);
      if (kept === undefined) return false;
      // No more than a lease of the rule as it is now: a reload may have made it smaller.
      const tokens = Math.min(kept, leaseSize(bucket));
      this.held.delete(bucket.key);
      if (tokens > 1) this.held.set(bucket.key, tokens - 1);
      return true;
    });
  }

  /** Puts back the tokens `take` took, for a call that was not admitted. */
  refund(buckets: readonly Bucket[], taken: readonly boolean[]): void {
    buckets.forEach((bucket, i) => {
      if (taken[i]) this.keep(bucket, 1);
    });
  }

  /**
   * How many tokens to ask the shared bucket for, for a call that found no
   * token here: a lease, unless one is already on its way. Answer with `settle`.
   */
  ask(bucket: Bucket): number {
    const size = leaseSize(bucket);
    if (size === 1 || this.asking.has(bucket.key)) return 1;
    this.asking.add(bucket.key);
    return size;
  }

  /** What the shared bucket gave for `ask`'s `asked` (0: nothing); the call spends one. */
  settle(bucket: Bucket, asked: number, granted: number): void {
    if (asked > 1) this.asking.delete(bucket.key);
    if (granted > 1) this.keep(bucket, granted - 1);
  }

  // Deleted and set again: a Map's order is then the order of last use.
  private keep(bucket: Bucket, tokens: number): void {
    const held = this.held.get(bucket.key) ?? 0;
    this.held.delete(bucket.key);
    this.held.set(bucket.key, held + tokens);
    if (this.held.size > this.maxHeld) this.held.delete(this.held.keys().next().value!);
  }
}
