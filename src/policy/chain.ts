/**
 * The policy chain: every tool call passes these links, in this order, on its
 * way to the source. Each link is `(call, next) => result`; it may refuse the
 * call, change its context, or look at the result on the way back.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallContext } from "../contract/router.js";
import type { StateStore } from "../state/store.js";
import type { ToolEntry } from "../tree/tree.js";
import { audit, type AuditRecord } from "./audit/index.js";
import { authorize } from "./authorize/index.js";
import { idempotency } from "./idempotency/index.js";
import { limits } from "./limits/index.js";
import { rateLimit, type RateLimitRule } from "./rate-limit/index.js";
import { redact } from "./redact/index.js";
import { timeout } from "./timeout/index.js";
import { validateArguments } from "./validate-arguments/index.js";

export interface Call {
  readonly path: string;
  readonly leaf: ToolEntry;
  readonly args: Record<string, unknown>;
  readonly ctx: CallContext;
}

export type Next = (call: Call) => Promise<CallToolResult>;
export type Link = (call: Call, next: Next) => Promise<CallToolResult>;

export interface PolicySettings {
  readonly store: StateStore;
  readonly rateLimits: readonly RateLimitRule[];
  readonly idempotencyTtlMs: number;
  readonly redactKeys: readonly string[];
  readonly audit: (record: AuditRecord, source: string) => void;
}

/** The links, outermost first. */
export function policyLinks(settings: PolicySettings): Link[] {
  return [
    audit(settings.audit), // every outcome recorded, refusals included
    authorize(), // 403 before anything is spent
    rateLimit(settings.store, settings.rateLimits), // 429; counts refused-later calls too
    validateArguments(), // the tool's schema
    limits(), // request size and `limit`; result size on the way back
    idempotency(settings.store, settings.idempotencyTtlMs), // a repeat returns the stored result
    timeout(), // cancels at the backend
    redact(settings.redactKeys), // before anything measures or stores the result
  ];
}

/** Wraps `last` (the call to the source) in the links, the first link outermost. */
export function compose(links: readonly Link[], last: Next): Next {
  return links.reduceRight<Next>((next, link) => (call) => link(call, next), last);
}
