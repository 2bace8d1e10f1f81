import type { Bucket } from "./store.js";

/** A bucket as the stores keep it (JSON), the Redis script included. */
export interface BucketState {
  readonly tokens: number;
  /** Epoch ms of the last take. */
  readonly at: number;
}

/**
 * The tokens in a bucket at `at`: what it held, refilled at
 * `perMinute / 60` a second since, up to `burst`; full when never used.
 */
export function refilled(raw: string | undefined, bucket: Bucket, at: number): number {
  if (raw === undefined) return bucket.burst;
  const state = JSON.parse(raw) as BucketState;
  return Math.min(bucket.burst, state.tokens + Math.max(0, at - state.at) * perMs(bucket));
}

/** Seconds until a bucket holding `tokens` has one whole token. */
export function secondsUntilToken(tokens: number, bucket: Bucket): number {
  return Math.max(1, Math.ceil((1 - tokens) / perMs(bucket) / 1000));
}

/** How long a bucket's state is worth keeping: until it is full again, and a minute. */
export function bucketTtlMs(bucket: Bucket): number {
  return Math.ceil(bucket.burst / perMs(bucket)) + 60_000;
}

function perMs(bucket: Bucket): number {
  return bucket.perMinute / 60_000;
}
