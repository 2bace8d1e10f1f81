import type { Admission, Bucket, Claim, StateStore } from "./store.js";
import { bucketTtlMs, refilled, secondsUntilToken } from "./token-bucket.js";

/**
 * `admit` from a store's own get and compare-and-set, for the stores that
 * live in one process or on one disk (memory, SQLite), where a round trip
 * costs nothing. Every bucket is read, and only when all have a token is
 * one taken from each; a race lost on one bucket reads them all again (a
 * token already taken from another in that race is not given back).
 */
export async function admitBySteps(
  store: StateStore,
  buckets: readonly Bucket[],
  claim?: Claim,
): Promise<Admission> {
  if (claim) {
    const held = await store.get(claim.key);
    if (held !== undefined) return { admitted: false, held };
  }
  for (;;) {
    const reads = await Promise.all(buckets.map((b) => store.get(b.key)));
    const at = Date.now();
    const tokens = buckets.map((b, i) => refilled(reads[i], b, at));
    const empty = tokens.findIndex((t) => t < 1);
    if (empty >= 0) {
      return {
        admitted: false,
        bucket: empty,
        waitS: secondsUntilToken(tokens[empty]!, buckets[empty]!),
      };
    }
    let taken = true;
    for (const [i, bucket] of buckets.entries()) {
      const state = JSON.stringify({ tokens: tokens[i]! - 1, at });
      if (!(await store.compareAndSet(bucket.key, reads[i], state, bucketTtlMs(bucket)))) {
        taken = false;
        break;
      }
    }
    if (taken) break;
  }
  while (claim && !(await store.compareAndSet(claim.key, undefined, claim.value, claim.leaseMs))) {
    const held = await store.get(claim.key);
    if (held !== undefined) return { admitted: false, held };
  }
  return { admitted: true };
}
