import type { Bucket } from "./store.js";

/**
 * Tokens a lease takes at once: a thousandth of the burst, at least one. A
 * burst under 2,000 is counted call by call, exactly.
 */
export function leaseSize(bucket: Bucket): number {
  return Math.max(1, Math.floor(bucket.burst / 1000));
}

/** How long an instance may spend a lease's tokens before it asks again. */
const LEASE_LIFETIME_MS = 1000;
/** Past this many buckets held, taking a lease first drops the expired ones. */
const SWEEP_ABOVE = 10_000;

interface Lease {
  tokens: number;
  readonly until: number;
}

/**
 * The tokens this instance took from shared buckets ahead of its calls, so
 * that most calls need no round trip to the shared store. Every token spent
 * here was taken from the shared bucket first, so the instances together
 * never admit more than the bucket's rate over time. At any moment each
 * holds at most one lease per bucket (one is asked for at a time: calls that
 * find none while it is on its way ask for their own token only), which
 * bounds how far a burst can be off, either way (see `leaseSize`). A lease
 * unspent after a second is dropped, not returned: the bucket refills it.
 */
export class BucketLeases {
  private readonly held = new Map<string, Lease>();
  private readonly asking = new Set<string>();

  constructor(private readonly lifetimeMs = LEASE_LIFETIME_MS) {}

  /**
   * Takes one token from each bucket's lease where there is one; which
   * buckets gave one. Give them back with `refund` if the call is not
   * admitted after all.
   */
  take(buckets: readonly Bucket[]): boolean[] {
    const now = Date.now();
    return buckets.map((bucket) => {
      const lease = this.held.get(bucket.key);
      if (!lease) return false;
      if (lease.until <= now) {
        this.held.delete(bucket.key);
        return false;
      }
      lease.tokens -= 1;
      if (lease.tokens === 0) this.held.delete(bucket.key);
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

  private keep(bucket: Bucket, tokens: number): void {
    const now = Date.now();
    const lease = this.held.get(bucket.key);
    if (lease && lease.until > now) {
      lease.tokens += tokens;
      return;
    }
    if (this.held.size > SWEEP_ABOVE) {
      for (const [key, old] of this.held) if (old.until <= now) this.held.delete(key);
    }
    this.held.set(bucket.key, { tokens, until: now + this.lifetimeMs });
  }
}
