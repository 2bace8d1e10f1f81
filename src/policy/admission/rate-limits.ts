import picomatch from "picomatch";
import { BrokerError } from "../../contract/errors.js";
import type { Principal } from "../../contract/router.js";
import type { Bucket, StateStore } from "../../state/store.js";

export interface RateLimitRule {
  /** A token id, or "*" for every caller (each with its own bucket). */
  readonly token: string;
  readonly path: string;
  readonly perMinute: number;
  readonly burst: number;
}

/** A bucket a request takes a token from, and the rule it is for. */
export interface RateLimitBucket {
  readonly rule: RateLimitRule;
  readonly bucket: Bucket;
}

/**
 * The config's rate limits: token buckets per caller and path glob, shared
 * by the instances of one store. The policy chain's admission link takes
 * from them for every request to a source; requests that reach no source
 * (the registry's methods, searches) take from them through `admit`.
 */
export class RateLimits {
  private readonly compiled: {
    rule: RateLimitRule;
    index: number;
    matches: (p: string) => boolean;
  }[];

  constructor(rules: readonly RateLimitRule[]) {
    this.compiled = rules.map((rule, index) => ({
      rule,
      index,
      matches: picomatch(rule.path, { dot: true }),
    }));
  }

  /** The buckets a request of `caller` at `path` takes a token from. */
  bucketsOf(caller: string, path: string): RateLimitBucket[] {
    return this.compiled
      .filter(({ rule, matches }) => (rule.token === "*" || rule.token === caller) && matches(path))
      .map(({ rule, index }) => ({
        rule,
        bucket: { key: `rate:${index}:${rule.path}:${caller}`, ...rule },
      }));
  }

  /** Takes a token for a request that reaches no source; `rate_limited` when a bucket is empty. */
  async admit(store: StateStore, principal: Principal, path: string): Promise<void> {
    const limits = this.bucketsOf(principal.id, path);
    if (limits.length === 0) return;
    const admitted = await store.admit(limits.map((l) => l.bucket));
    if ("waitS" in admitted)
      throw rateLimited(principal.id, limits[admitted.bucket]!.rule, admitted.waitS);
  }
}

export function rateLimited(caller: string, rule: RateLimitRule, wait: number): BrokerError {
  return new BrokerError(
    "rate_limited",
    `token "${caller}" is over its rate limit of ${rule.perMinute} calls a minute on ${rule.path}; retry in ${wait} s`,
    { retry_after_s: wait, per_minute: rule.perMinute, burst: rule.burst, path: rule.path },
  );
}
