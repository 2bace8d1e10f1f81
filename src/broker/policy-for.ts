import type { Config } from "../config/schema.js";
import type { Logger } from "../contract/log.js";
import { DEFAULT_RESULT_QUOTA } from "../policy/admission/index.js";
import { RateLimits } from "../policy/admission/rate-limits.js";
import { compose, policyLinks } from "../policy/chain.js";
import type { Next } from "../policy/link.js";
import type { ApprovalGate } from "../policy/approval/index.js";
import type { BrokerParts } from "./broker-parts.js";
import { toSource } from "./to-source.js";

/** The policy a config asks for: its chain around the call to the source, and its rate limits. */
export interface Policy {
  readonly invoke: Next;
  /** The rate limits, for requests that reach no source (registry methods, searches). */
  readonly rateLimits: RateLimits;
}

/** The policy chain for a config, around the call to the source. */
export function policyFor(
  config: Config,
  parts: BrokerParts,
  log: Logger,
  approvals?: ApprovalGate,
): Policy {
  const rateLimits = (config.rate_limits ?? []).map((r) => ({
    token: r.token,
    path: r.path,
    perMinute: r.per_minute,
    burst: r.burst ?? Math.max(1, Math.floor(r.per_minute / 6)),
  }));
  const links = policyLinks({
    store: parts.store,
    rateLimits,
    idempotencyTtlMs: (config.idempotency?.ttl_s ?? 86_400) * 1000,
    idempotencyQuota: {
      maxResultBytes: config.idempotency?.max_result_bytes ?? DEFAULT_RESULT_QUOTA.maxResultBytes,
      maxBytesPerToken:
        config.idempotency?.max_bytes_per_token ?? DEFAULT_RESULT_QUOTA.maxBytesPerToken,
      maxKeysPerToken:
        config.idempotency?.max_keys_per_token ?? DEFAULT_RESULT_QUOTA.maxKeysPerToken,
    },
    redactKeys: config.redact ?? [],
    audit: parts.auditSink.write,
    approvals,
    relayDropped: (path, what) =>
      log.warn({ path, what }, "a backend relayed more than a request may (relay budget)"),
  });
  return {
    invoke: compose(links, (request) => toSource(parts.sources, request)),
    rateLimits: new RateLimits(rateLimits),
  };
}
