/**
 * The policy chain: every request a frontend makes of a source (tool calls,
 * resource reads, prompts, completions, lists, subscriptions) passes these
 * links, in this order, on its way to the source. Each link is
 * `(request, next) => result` (policy/link.ts).
 */
import type { StateStore } from "../state/store.js";
import { approval, type ApprovalGate } from "./approval/index.js";
import { argsDepth } from "./args-depth/index.js";
import { audit, type AuditEntry } from "./audit/index.js";
import { authorize } from "./authorize/index.js";
import type { Link, Next } from "./link.js";
import { limits } from "./limits/index.js";
import { admission, DEFAULT_RESULT_QUOTA, type RateLimitRule } from "./admission/index.js";
import { ResultQuota, type ResultQuotaLimits } from "./admission/result-quota.js";
import { redact } from "./redact/index.js";
import { DEFAULT_RELAY_BUDGET, relayBudget } from "./relay-budget/index.js";
import { timeout } from "./timeout/index.js";
import { trace } from "./trace/index.js";
import { validateArguments } from "./validate-arguments/index.js";

export interface PolicySettings {
  readonly store: StateStore;
  readonly rateLimits: readonly RateLimitRule[];
  readonly idempotencyTtlMs: number;
  /** What a token may keep of idempotent results; DEFAULT_RESULT_QUOTA unless set. */
  readonly idempotencyQuota?: ResultQuotaLimits | undefined;
  readonly redactKeys: readonly string[];
  readonly audit: (entry: AuditEntry, source: string) => void;
  /** Told when a backend's relaying to its caller met its budget (for the log). */
  readonly relayDropped?: ((path: string, what: string) => void) | undefined;
  /** Where calls that need a person's approval wait for it; none: no call needs one. */
  readonly approvals?: ApprovalGate | undefined;
}

/** The links, outermost first. */
export function policyLinks(settings: PolicySettings): Link[] {
  return [
    trace(settings.redactKeys), // a span around all the rest
    audit(settings.audit), // every outcome recorded, refusals included
    authorize(), // 403 before anything is spent
    // 429, counting refused-later requests too; a repeat of a keyed call returns the stored result
    admission(
      settings.store,
      settings.rateLimits,
      settings.idempotencyTtlMs,
      undefined,
      new ResultQuota(settings.idempotencyQuota ?? DEFAULT_RESULT_QUOTA),
    ),
    argsDepth(), // before anything below walks the arguments recursively
    validateArguments(), // the tool's schema (tool calls)
    // a call the config wants approved waits for a person; approvers see only valid calls
    ...(settings.approvals?.rules.any ? [approval(settings.approvals)] : []),
    limits(), // request size and `limit`; result size on the way back
    timeout(), // cancels at the backend
    // logs, progress and the backend's own requests to the caller, bounded per request
    relayBudget(DEFAULT_RELAY_BUDGET, settings.relayDropped ?? (() => undefined)),
    redact(settings.redactKeys), // before anything measures or stores the result
  ];
}

/** Wraps `last` (the request to the source) in the links, the first link outermost. */
export function compose(links: readonly Link[], last: Next): Next {
  return links.reduceRight<Next>((next, link) => (request) => link(request, next), last);
}
