import picomatch from "picomatch";
import type { ApprovalRuleConfig, ApprovalsConfig } from "../config/schema.js";

/** The approval a call needs: the rule that asks for it, for how long, and from whom. */
export interface ApprovalRule {
  /** The rule's glob, or `destructiveHint` for a tool that says it destroys. */
  readonly rule: string;
  readonly ttlMs: number;
  readonly approver: "scope" | "caller";
}

export const DEFAULT_APPROVAL_TTL_S = 900;
export const DEFAULT_APPROVAL_WAIT_S = 60;

/**
 * The config's `approvals`, compiled: which calls need a person's approval.
 * The first rule whose glob matches the tool's path decides; a tool that
 * says `destructiveHint` needs one too where `destructive` is on.
 */
export class ApprovalRules {
  /** How long a call waits for its decision before it is answered with its task. */
  readonly waitMs: number;
  /** Whether an approver may approve their own token's call. */
  readonly selfApproval: boolean;
  private readonly rules: readonly (ApprovalRule & { matches: (path: string) => boolean })[];
  private readonly destructive: ApprovalRule | undefined;

  constructor(config: ApprovalsConfig | undefined) {
    const settings = Array.isArray(config) ? { rules: config } : (config ?? {});
    const ttlS = settings.ttl_s ?? DEFAULT_APPROVAL_TTL_S;
    this.waitMs = (settings.wait_s ?? DEFAULT_APPROVAL_WAIT_S) * 1000;
    this.selfApproval = settings.self_approval ?? false;
    this.rules = (settings.rules ?? []).map((r: ApprovalRuleConfig) => ({
      rule: r.path,
      ttlMs: (r.ttl_s ?? ttlS) * 1000,
      approver: r.approver ?? "scope",
      matches: picomatch(r.path, { dot: true }),
    }));
    this.destructive = settings.destructive
      ? { rule: "destructiveHint", ttlMs: ttlS * 1000, approver: "scope" }
      : undefined;
  }

  /** Whether any call may need approval: where none can, the chain skips the step. */
  get any(): boolean {
    return this.rules.length > 0 || this.destructive !== undefined;
  }

  /** The approval a call of the tool at `path` needs, if any. */
  for(path: string, destructiveHint: boolean | undefined): ApprovalRule | undefined {
    const rule = this.rules.find((r) => r.matches(path));
    if (rule) return { rule: rule.rule, ttlMs: rule.ttlMs, approver: rule.approver };
    return destructiveHint === true ? this.destructive : undefined;
  }
}
