import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { allows } from "../auth/scopes.js";
import { digestOf } from "../contract/digest.js";
import { BrokerError } from "../contract/errors.js";
import type { CallerContext, Principal } from "../contract/router.js";
import type { ApprovalBinding, ApprovalGate } from "../policy/approval/index.js";
import type { ToolCall } from "../policy/link.js";
import type { ApprovalRule, ApprovalRules } from "../tasks/approval-rules.js";
import { TERMINAL, viewOf, type TaskRecord, type TaskView } from "../tasks/task.js";
import type { TaskDesk } from "./task-desk.js";

export interface ApprovalDeskOptions {
  /** SHA-256 of the config parts that decide a call of the tool at `path` (throws where there is none). */
  readonly policyOf: (path: string) => string;
}

/** How often a call waiting for a decision tells its client it still waits. */
const WAITING_NOTICE_MS = 5000;

/**
 * The approvals calls wait for, as tasks: parks a call the config's
 * `approvals` name (the policy chain's approval link asks it to), lets a
 * person with the `approve` scope approve or deny it, runs an approved call
 * once, here, and gives its result to its caller once. See docs/TASKS.md and
 * docs/DECISIONS.md for what an approval is bound to.
 */
export class ApprovalDesk implements ApprovalGate {
  constructor(
    private readonly tasks: TaskDesk,
    private readonly options: ApprovalDeskOptions,
  ) {}

  get rules(): ApprovalRules {
    return this.tasks.settings.rules;
  }

  /** What an approval of the call is bound to. */
  binding(call: ToolCall): ApprovalBinding {
    const policy = this.options.policyOf(call.path);
    return { key: bindingOf(call.ctx.principal.id, call.path, call.args, policy), policy };
  }

  /**
   * Parks the call as a task awaiting approval, or finds the one a repeat of
   * it (same binding) parked; waits up to `approvals.wait_s` for the
   * decision; the result of the approved run, or `pending` naming the task.
   */
  async park(
    call: ToolCall,
    rule: ApprovalRule,
    binding: ApprovalBinding,
  ): Promise<CallToolResult> {
    const { book } = this.tasks;
    const { ctx } = call;
    const earlier = ctx.asTask === undefined ? await book.boundTask(binding.key) : undefined;
    let task = earlier === undefined ? undefined : await book.read(earlier);
    if (task !== undefined && task.delivered_at !== undefined) task = undefined;
    if (task === undefined) {
      task = {
        ...this.tasks.draft(
          ctx.asTask ?? randomUUID(),
          call.path,
          call.args,
          ctx.principal,
          "awaiting_approval",
        ),
        status_message: `waits for a person with the approve scope on ${call.path} to approve or deny it`,
        approval: {
          rule: rule.rule,
          binding: binding.key,
          policy_sha256: binding.policy,
          expires_at: new Date(Date.now() + rule.ttlMs).toISOString(),
          approver: "scope",
        },
      };
      await book.create(task);
      await book.bind(binding.key, task);
      this.tasks.record(task, ctx.principal, "proposed");
    }
    if (ctx.asTask !== undefined) throw pending(task, "");
    const decided = await this.waitForDecision(task, ctx);
    if (!TERMINAL.has(decided.status)) throw pending(decided, howToFollow(decided));
    return this.deliver(decided, ctx.principal);
  }

  /** Approves a task awaiting approval, and runs its call here, once. */
  async approve(id: string, approver: Principal, reason?: string): Promise<TaskRecord> {
    const task = await this.decidable(id, approver);
    const now = this.options.policyOf(task.path);
    const binding = bindingOf(task.caller.id, task.path, task.args, now);
    if (binding !== task.approval?.binding) {
      const failed = await this.tasks.book.update(
        id,
        (t) => t.status === "awaiting_approval",
        (t) => ({
          ...t,
          status: "failed",
          error: {
            kind: "idempotency_conflict",
            message: `the policy that decides ${t.path} changed since the approval was asked (config, scopes or the tool's definition); the call must be made and approved anew`,
          },
        }),
      );
      throw new BrokerError("idempotency_conflict", failed?.task.error?.message ?? "task changed", {
        task: id,
      });
    }
    // Leased before it is claimed: a reader between the two must not take the task for dead.
    await this.tasks.book.lease(id);
    const claimed = await this.tasks.book.update(
      id,
      (t) => t.status === "awaiting_approval",
      (t) => ({
        ...t,
        status: "working",
        instance: this.tasks.book.instance,
        status_message: `approved by ${approver.id}; running`,
        approval: decided(t, approver, reason),
      }),
    );
    // A loser's lease is left to lapse: the winner may be this very instance, holding the same one.
    if (!claimed?.changed) throw alreadyDecided(claimed?.task ?? task);
    this.tasks.record(claimed.task, approver, "approved");
    void this.tasks
      .runApproved(claimed.task, binding)
      .then(() => this.tasks.record(claimed.task, task.caller, "executed"));
    return claimed.task;
  }

  /** Denies a task awaiting approval: its call never runs, and its caller is told why. */
  async deny(id: string, approver: Principal, reason?: string): Promise<TaskRecord> {
    await this.decidable(id, approver);
    const denied = await this.tasks.book.update(
      id,
      (t) => t.status === "awaiting_approval",
      (t) => ({
        ...t,
        status: "denied",
        status_message: `denied by ${approver.id}${reason ? `: ${reason}` : ""}`,
        approval: decided(t, approver, reason),
      }),
    );
    if (!denied?.changed) throw alreadyDecided(denied?.task);
    this.tasks.record(denied.task, approver, "denied");
    this.tasks.changed(id);
    return denied.task;
  }

  /** Waits for the approvers, telling the client every few seconds; the task as it is then. */
  private async waitForDecision(task: TaskRecord, ctx: CallerContext): Promise<TaskRecord> {
    const until = Date.now() + this.rules.waitMs;
    let current = task;
    let notices = 0;
    while (!TERMINAL.has(current.status) && Date.now() < until && !ctx.signal.aborted) {
      ctx.progress?.({
        progress: notices++,
        message: `${current.id}: ${current.status_message ?? current.status}`,
      });
      await this.tasks.nextChange(
        current.id,
        Math.min(WAITING_NOTICE_MS, until - Date.now()),
        ctx.signal,
      );
      current = (await this.tasks.book.read(current.id)) ?? current;
    }
    return current;
  }

  /** A finished task's answer to its caller, given once: the result, or why there is none. */
  private async deliver(task: TaskRecord, caller: Principal): Promise<CallToolResult> {
    const given = await this.tasks.book.update(
      task.id,
      (t) => t.delivered_at === undefined,
      (t) => ({ ...t, delivered_at: new Date().toISOString() }),
    );
    if (given?.changed) this.tasks.record(task, caller, "delivered");
    if (task.status === "completed" && task.outcome) return task.outcome.result;
    throw new BrokerError(
      task.status === "denied" ? "forbidden" : ((task.error?.kind as "internal") ?? "internal"),
      task.status === "denied" || task.status === "expired" || task.status === "cancelled"
        ? `the call was not run: ${task.status_message ?? task.status}`
        : (task.error?.message ?? `the task ${task.status}`),
      { task: task.id, status: task.status },
    );
  }

  /** The task, where `approver` may decide it now. */
  private async decidable(id: string, approver: Principal): Promise<TaskRecord> {
    const task = await this.tasks.get(id, approver);
    if (!allows(approver, "approve", task.path))
      throw new BrokerError(
        "forbidden",
        `token "${approver.id}" may not approve calls of ${task.path}: it needs the scope approve:${task.path}`,
        { task: id, scope: `approve:${task.path}` },
      );
    if (task.status !== "awaiting_approval") throw alreadyDecided(task);
    if (task.caller.id === approver.id && !this.rules.selfApproval)
      throw new BrokerError(
        "forbidden",
        `token "${approver.id}" made this call and may not approve it: another approver must (approvals.self_approval allows it)`,
        { task: id },
      );
    return task;
  }
}

/** SHA-256 over what an approval is bound to. */
function bindingOf(caller: string, path: string, args: unknown, policy: string): string {
  return digestOf({ caller, path, args_sha256: digestOf(args), policy });
}

function decided(
  task: TaskRecord,
  approver: Principal,
  reason: string | undefined,
): TaskRecord["approval"] {
  return {
    ...task.approval!,
    decided_by: approver.id,
    decided_at: new Date().toISOString(),
    ...(reason !== undefined && reason !== "" && { reason }),
  };
}

function pending(task: TaskRecord, follow: string): BrokerError {
  return new BrokerError(
    "pending",
    `${task.path} needs a person's approval before it runs; it waits as task ${task.id}${follow}`,
    { task: viewOf(task) satisfies TaskView },
  );
}

function howToFollow(task: TaskRecord): string {
  return `, until ${task.approval?.expires_at ?? task.expires_at}. Make the same call again (same arguments) to wait for it or get its result, or follow GET /tasks/${task.id}`;
}

function alreadyDecided(task: TaskRecord | undefined): BrokerError {
  return new BrokerError(
    "idempotency_conflict",
    task === undefined
      ? "the task is gone"
      : `the task is ${task.status}${task.approval?.decided_by ? ` (decided by ${task.approval.decided_by})` : ""}: only a task awaiting approval can be approved or denied`,
    task && { task: task.id, status: task.status },
  );
}
