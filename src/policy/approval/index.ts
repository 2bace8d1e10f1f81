import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ApprovalRule, ApprovalRules } from "../../tasks/approval-rules.js";
import type { Link, ToolCall } from "../link.js";
import { askCaller } from "./ask-caller.js";

/** What an approval is bound to: its key, over caller, path, arguments and the policy's digest. */
export interface ApprovalBinding {
  readonly key: string;
  /** SHA-256 of the config parts that decide the call. */
  readonly policy: string;
}

/** Where approvals are kept and decided: the broker's approval desk. */
export interface ApprovalGate {
  readonly rules: ApprovalRules;
  /** What an approval of this call is bound to: caller, path, arguments and the policy in force. */
  binding(call: ToolCall): ApprovalBinding;
  /**
   * Parks the call as a task awaiting approval (or finds the one a repeat of
   * it parked): the call's result once it was approved and run, or a
   * `pending` error naming the task when no decision came in time.
   */
  park(call: ToolCall, rule: ApprovalRule, binding: ApprovalBinding): Promise<CallToolResult>;
}

/**
 * Tool calls the config's `approvals` name run only once a person approved
 * that exact call: the same caller, path, arguments and policy, once. A call
 * without approval is parked as a task and waits for the decision; the
 * broker runs it after the approval, through this chain again, carrying the
 * approval's binding (`ctx.approved`), which this link checks against the
 * call as it is then. Where the rule names the caller as approver, the
 * person at the client is asked in place, through elicitation. Other kinds
 * of request pass untouched.
 *
 * @example
 * compose([authorize(), validateArguments(), approval(desk)], callSource)
 */
export function approval(gate: ApprovalGate): Link {
  return async function approvalLink(request, next) {
    if (request.kind !== "tools/call" || !gate.rules.any) return next(request);
    const rule = gate.rules.for(request.path, request.leaf.tool.annotations?.destructiveHint);
    if (rule === undefined) return next(request);
    if (rule.approver === "caller") {
      await askCaller(request, rule);
      return next(request);
    }
    const binding = gate.binding(request);
    if (request.ctx.approved === binding.key) return next(request);
    return gate.park(request, rule, binding);
  };
}
