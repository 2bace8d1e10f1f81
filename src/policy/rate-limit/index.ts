import picomatch from "picomatch";
import { BrokerError } from "../../contract/errors.js";
import type { StateStore } from "../../state/store.js";
import type { Link } from "../link.js";
import { takeToken } from "./token-bucket.js";

export interface RateLimitRule {
  /** A token id, or "*" for every caller (each with its own bucket). */
  readonly token: string;
  readonly path: string;
  readonly perMinute: number;
  readonly burst: number;
}

/**
 * Token buckets per caller and path glob, for requests of every kind at the
 * paths they are governed at, in the state store, so that several
 * instances share them. Over the limit: `rate_limited` (HTTP 429) with the
 * seconds to wait, which the HTTP frontends send as `Retry-After`.
 *
 * @example
 * compose([rateLimit(store, [{ token: "*", path: "/**", perMinute: 600, burst: 60 }])], callSource)
 */
export function rateLimit(store: StateStore, rules: readonly RateLimitRule[]): Link {
  const compiled = rules.map((rule, index) => ({
    rule,
    index,
    matches: picomatch(rule.path, { dot: true }),
  }));
  return async function rateLimitLink(request, next) {
    const caller = request.ctx.principal.id;
    for (const { rule, index, matches } of compiled) {
      if ((rule.token !== "*" && rule.token !== caller) || !matches(request.path)) continue;
      const wait = await takeToken(store, `rate:${index}:${rule.path}:${caller}`, rule);
      if (wait > 0) {
        throw new BrokerError(
          "rate_limited",
          `token "${caller}" is over its rate limit of ${rule.perMinute} calls a minute on ${rule.path}; retry in ${wait} s`,
          { retry_after_s: wait, per_minute: rule.perMinute, burst: rule.burst, path: rule.path },
        );
      }
    }
    return next(request);
  };
}
