import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { allows } from "../auth/scopes.js";
import { digestOf } from "../contract/digest.js";
import { asBrokerError, BrokerError } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import type { CallerContext, Principal } from "../contract/router.js";
import type { AuditEntry } from "../policy/audit/index.js";
import type { ApprovalGate } from "../policy/approval/index.js";
import type { ToolCall } from "../policy/link.js";
import type { MessageBus } from "../state/store.js";
import type { ApprovalRule, ApprovalRules } from "../tasks/approval-rules.js";
import { HEARTBEAT_MS, TaskBook } from "../tasks/task-book.js";
import {
  TERMINAL,
  viewOf,
  type TaskRecord,
  type TaskStatus,
  type TaskView,
} from "../tasks/task.js";
import type { CallOutput } from "./meta-api/answers.js";
import { TaskWaits } from "./task-waits.js";

export interface TaskDeskOptions {
  readonly book: TaskBook;
  readonly bus: MessageBus | undefined;
  readonly log: Logger;
  readonly audit: (entry: AuditEntry) => void;
  /** A tool call as `meta_call` makes it, through the whole policy chain. */
  readonly call: (path: string, args: unknown, caller: CallerContext) => Promise<CallOutput>;
  /** SHA-256 of the config parts that decide a call of the tool at `path` (throws where there is none). */
  readonly policyOf: (path: string) => string;
  readonly settings: () => TaskSettings;
}

export interface TaskSettings {
  readonly ttlMs: number;
  /** A client of MCP's Tasks extension is answered in place when its call ends this soon. */
  readonly answerWithinMs: number;
  readonly maxResultBytes: number;
  readonly rules: ApprovalRules;
}

/** How often a call waiting for a decision tells its client it still waits. */
const WAITING_NOTICE_MS = 5000;

/**
 * Calls kept as tasks, and the approvals some of them wait for: the one
 * place that creates, runs, decides, cancels and answers tasks, for every
 * frontend. A task runs on the instance that started it (or approved it);
 * any instance sharing the store answers for it, and cancels it through the
 * store's bus.
 */
export class TaskDesk implements ApprovalGate {
  /** The calls this instance runs, by task id: to cancel and to keep leased. */
  private readonly running = new Map<string, AbortController>();
  private readonly waits: TaskWaits;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly unsubscribe: (() => void) | undefined;

  constructor(private readonly options: TaskDeskOptions) {
    this.waits = new TaskWaits(options.bus);
    this.heartbeat = setInterval(() => {
      for (const id of this.running.keys())
        options.book.lease(id).catch((err: Error) => this.warn(id, err, "lease renewal failed"));
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
    this.unsubscribe = options.bus?.subscribe(CANCEL_CHANNEL, (id) =>
      this.running.get(id)?.abort(cancelled()),
    );
  }

  get rules(): ApprovalRules {
    return this.options.settings().rules;
  }

  get answerWithinMs(): number {
    return this.options.settings().answerWithinMs;
  }

  /**
   * Starts a call followed as a task. Where it ends within `answerWithinMs`
   * (and needs no approval) its output is the answer and no task is kept;
   * else the task, durably stored before this resolves.
   */
  async start(
    path: string,
    args: Record<string, unknown>,
    caller: CallerContext,
    answerWithinMs: number,
  ): Promise<{ output: CallOutput } | { task: TaskRecord }> {
    const id = randomUUID();
    const controller = new AbortController();
    this.running.set(id, controller);
    // Once the answer is the task, the request is over: nothing more goes back on it.
    let answered = false;
    const { request, progress, notify } = caller;
    const run = this.options.call(path, args, {
      ...caller,
      signal: controller.signal,
      asTask: id,
      request:
        request &&
        ((r, signal, key) =>
          answered
            ? Promise.reject(
                new BrokerError(
                  "unavailable",
                  `the backend asked the client for ${r.method} after the call became a task, which cannot ask its client anything`,
                ),
              )
            : request(r, signal, key)),
      progress: progress && ((p) => answered || progress(p)),
      notify: notify && ((n) => answered || notify(n)),
    });
    const early = await Promise.race([
      run.then(
        (output) => ({ output }),
        (err: unknown) => ({ err }),
      ),
      delay(answerWithinMs).then(() => undefined),
    ]);
    if (early && "output" in early) {
      this.running.delete(id);
      return early;
    }
    if (early && asBrokerError(early.err).kind !== "pending") {
      this.running.delete(id);
      throw early.err;
    }
    answered = true;
    const parked = await this.options.book.read(id);
    if (parked) {
      // An approval parked it; the approver's instance runs it.
      this.running.delete(id);
      void run.catch(() => undefined);
      return { task: parked };
    }
    const task = this.newTask(id, path, args, caller.principal, "working");
    await this.options.book.create(task);
    void this.finish(id, run);
    return { task };
  }

  /** The task, where `principal` may see it (its caller, an admin, or who may approve it). */
  async get(id: string, principal: Principal): Promise<TaskRecord> {
    const task = await this.options.book.read(id);
    if (task === undefined || !mayKnow(principal, task)) throw noSuchTask(id);
    return task;
  }

  /** The tasks `principal` may see, of one status where given, oldest first. */
  list(principal: Principal, status?: TaskStatus): Promise<TaskRecord[]> {
    return this.options.book.list(
      (t) => (status === undefined || t.status === status) && mayKnow(principal, t),
    );
  }

  /** Cancels a task of the caller's (or any, for an admin); a finished one is left as it is. */
  async cancel(id: string, principal: Principal): Promise<TaskRecord> {
    const task = await this.get(id, principal);
    if (principal.id !== task.caller.id && !allows(principal, "admin", task.path))
      throw new BrokerError("forbidden", `only the task's caller or an admin may cancel it`, {
        task: id,
      });
    const done = await this.options.book.update(
      id,
      (t) => !TERMINAL.has(t.status),
      (t) => ({ ...t, status: "cancelled", status_message: `cancelled by ${principal.id}` }),
    );
    if (!done) throw noSuchTask(id);
    if (done.changed) {
      this.audit(done.task, principal, "cancelled");
      this.running.get(id)?.abort(cancelled());
      await this.options.bus?.publish(CANCEL_CHANNEL, id);
      this.waits.changed(id);
    }
    return done.task;
  }

  /** What an approval of the call is bound to. */
  binding(call: ToolCall): string {
    return bindingOf(call.ctx.principal.id, call.path, call.args, this.options.policyOf(call.path));
  }

  async park(call: ToolCall, rule: ApprovalRule, binding: string): Promise<CallToolResult> {
    const { book } = this.options;
    const { ctx } = call;
    const earlier = ctx.asTask === undefined ? await book.boundTask(binding) : undefined;
    let task = earlier === undefined ? undefined : await book.read(earlier);
    if (task !== undefined && task.delivered_at !== undefined) task = undefined;
    if (task === undefined) {
      task = {
        ...this.newTask(
          ctx.asTask ?? randomUUID(),
          call.path,
          call.args,
          ctx.principal,
          "awaiting_approval",
        ),
        status_message: `waits for a person with the approve scope on ${call.path} to approve or deny it`,
        approval: {
          rule: rule.rule,
          binding,
          policy_sha256: this.options.policyOf(call.path),
          expires_at: new Date(Date.now() + rule.ttlMs).toISOString(),
          approver: "scope",
        },
      };
      await book.create(task);
      await book.bind(binding, task);
      this.audit(task, ctx.principal, "proposed");
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
      const failed = await this.options.book.update(
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
    await this.options.book.lease(id);
    const claimed = await this.options.book.update(
      id,
      (t) => t.status === "awaiting_approval",
      (t) => ({
        ...t,
        status: "working",
        instance: this.options.book.instance,
        status_message: `approved by ${approver.id}; running`,
        approval: decided(t, approver, reason),
      }),
    );
    // A loser's lease is left to lapse: the winner may be this very instance, holding the same one.
    if (!claimed?.changed) throw alreadyDecided(claimed?.task ?? task);
    this.audit(claimed.task, approver, "approved");
    const controller = new AbortController();
    this.running.set(id, controller);
    this.waits.changed(id);
    const run = this.options.call(task.path, task.args, {
      signal: controller.signal,
      principal: task.caller,
      approved: binding,
    });
    void this.finish(id, run).then(() => this.audit(claimed.task, task.caller, "executed"));
    return claimed.task;
  }

  async deny(id: string, approver: Principal, reason?: string): Promise<TaskRecord> {
    await this.decidable(id, approver);
    const denied = await this.options.book.update(
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
    this.audit(denied.task, approver, "denied");
    this.waits.changed(id);
    return denied.task;
  }

  /** Resolves when the task changes status or `ms` passed, whichever is first. */
  waitForChange(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return this.waits.next(id, ms, signal);
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.unsubscribe?.();
    this.waits.close();
    for (const controller of this.running.values()) controller.abort(cancelled());
  }

  /** Stores how a task's call ended, unless it was cancelled or is no longer this instance's. */
  private async finish(id: string, run: Promise<CallOutput>): Promise<void> {
    const { book, settings } = this.options;
    let change: (t: TaskRecord) => TaskRecord;
    try {
      const out = await run;
      const outcome = {
        is_error: out.isError,
        output: out.output,
        ...(out.truncated && { truncated: true as const }),
        result: out.result,
      };
      const bytes = Buffer.byteLength(JSON.stringify(outcome));
      const max = settings().maxResultBytes;
      change =
        bytes > max
          ? (t) => ({
              ...t,
              status: "failed",
              error: {
                kind: "too_large",
                message: `the result (${bytes} bytes) is larger than a task keeps (tasks.max_result_bytes, ${max}); it was not kept`,
              },
            })
          : (t) => ({ ...t, status: "completed", status_message: undefined, outcome });
    } catch (err) {
      const e = asBrokerError(err);
      change = (t) => ({ ...t, status: "failed", error: { kind: e.kind, message: e.message } });
    }
    try {
      await book.update(id, (t) => t.status === "working" && t.instance === book.instance, change);
    } catch (err) {
      this.warn(id, err as Error, "storing the task's result failed");
    } finally {
      this.running.delete(id);
      this.waits.changed(id);
    }
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
      await this.waits.next(
        current.id,
        Math.min(WAITING_NOTICE_MS, until - Date.now()),
        ctx.signal,
      );
      current = (await this.options.book.read(current.id)) ?? current;
    }
    return current;
  }

  /** A finished task's answer to its caller, given once: the result, or why there is none. */
  private async deliver(task: TaskRecord, caller: Principal): Promise<CallToolResult> {
    const given = await this.options.book.update(
      task.id,
      (t) => t.delivered_at === undefined,
      (t) => ({ ...t, delivered_at: new Date().toISOString() }),
    );
    if (given?.changed) this.audit(task, caller, "delivered");
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
    const task = await this.get(id, approver);
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

  private newTask(
    id: string,
    path: string,
    args: Record<string, unknown>,
    caller: Principal,
    status: TaskStatus,
  ): TaskRecord {
    const now = new Date();
    return {
      id,
      status,
      path,
      caller: { id: caller.id, scopes: caller.scopes },
      args,
      args_sha256: digestOf(args),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.options.settings().ttlMs).toISOString(),
      ...(status === "working" && { instance: this.options.book.instance }),
    };
  }

  private audit(task: TaskRecord, actor: Principal, outcome: string): void {
    this.options.audit({
      time: new Date().toISOString(),
      token: actor.id,
      method: "task",
      path: task.path,
      outcome,
      duration_ms: 0,
      task_id: task.id,
      args: task.args,
    });
  }

  private warn(id: string, err: Error, what: string): void {
    this.options.log.warn({ task: id, err: err.message }, what);
  }
}

const CANCEL_CHANNEL = "task-cancel";

/** SHA-256 over what an approval is bound to. */
function bindingOf(caller: string, path: string, args: unknown, policy: string): string {
  return digestOf({ caller, path, args_sha256: digestOf(args), policy });
}

/** Who may know of a task: its caller, an admin of its path, and who may approve its calls. */
function mayKnow(principal: Principal, task: TaskRecord): boolean {
  return (
    principal.id === task.caller.id ||
    allows(principal, "admin", task.path) ||
    (task.approval !== undefined && allows(principal, "approve", task.path))
  );
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

function noSuchTask(id: string): BrokerError {
  return new BrokerError(
    "not_found",
    `no task ${id} that this token may see (tasks are kept for tasks.ttl_s)`,
    { task: id },
  );
}

function cancelled(): BrokerError {
  return new BrokerError("unavailable", "the task was cancelled");
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
