import { randomUUID } from "node:crypto";
import { allows } from "../auth/scopes.js";
import { digestOf } from "../contract/digest.js";
import { asBrokerError, BrokerError } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import type { CallerContext, Principal } from "../contract/router.js";
import type { AuditEntry } from "../policy/audit/index.js";
import type { MessageBus } from "../state/store.js";
import type { ApprovalRules } from "../tasks/approval-rules.js";
import { HEARTBEAT_MS, TaskBook } from "../tasks/task-book.js";
import { TERMINAL, type TaskRecord, type TaskStatus } from "../tasks/task.js";
import type { CallOutput } from "./meta-api/answers.js";
import { TaskWaits } from "./task-waits.js";

export interface TaskDeskOptions {
  readonly book: TaskBook;
  readonly bus: MessageBus | undefined;
  readonly log: Logger;
  readonly audit: (entry: AuditEntry) => void;
  /** A tool call as `meta_call` makes it, through the whole policy chain. */
  readonly call: (path: string, args: unknown, caller: CallerContext) => Promise<CallOutput>;
  readonly settings: () => TaskSettings;
}

export interface TaskSettings {
  readonly ttlMs: number;
  /** A client of MCP's Tasks extension is answered in place when its call ends this soon. */
  readonly answerWithinMs: number;
  readonly maxResultBytes: number;
  /** Tasks one token may have running on one instance at once. */
  readonly maxRunningPerCaller: number;
  readonly rules: ApprovalRules;
}

/**
 * Calls kept as tasks: the one place that creates, runs, cancels and
 * answers tasks, for every frontend (the approvals some of them wait for
 * are the ApprovalDesk's, built on this one). A task runs on the instance
 * that started it (or approved it); any instance sharing the store answers
 * for it, and cancels it through the store's bus.
 */
export class TaskDesk {
  /** The calls this instance runs, by task id, with whose they are: to cancel and keep leased. */
  private readonly running = new Map<string, { controller: AbortController; owner: string }>();
  /** How many of them each caller started, to bound what one token can keep running. */
  private readonly perCaller = new Map<string, number>();
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
      this.running.get(id)?.controller.abort(cancelled()),
    );
  }

  get settings(): TaskSettings {
    return this.options.settings();
  }

  get book(): TaskBook {
    return this.options.book;
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
    const max = this.options.settings().maxRunningPerCaller;
    const owner = caller.principal.id;
    if ((this.perCaller.get(owner) ?? 0) >= max) {
      throw new BrokerError(
        "rate_limited",
        `token "${owner}" has ${max} tasks running here already (tasks.max_running_per_caller); wait for one to end or cancel one`,
        { retry_after_s: 1 },
      );
    }
    const id = randomUUID();
    const controller = new AbortController();
    this.track(id, controller, owner);
    // Once the answer is the task, the request is over: nothing more goes back on it.
    let answered = false;
    const redaction = redactionSeen(caller);
    const { request, progress, notify } = caller;
    const run = this.options.call(path, args, {
      ...caller,
      redacted: redaction.seen,
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
      this.untrack(id);
      return early;
    }
    if (early && asBrokerError(early.err).kind !== "pending") {
      this.untrack(id);
      throw early.err;
    }
    answered = true;
    const parked = await this.options.book.read(id);
    if (parked) {
      // An approval parked it; the approver's instance runs it.
      this.untrack(id);
      void run.catch(() => undefined);
      return { task: parked };
    }
    const task = this.draft(id, path, args, caller.principal, "working");
    await this.options.book.create(task);
    void this.finish(id, run, redaction.happened);
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
      this.record(done.task, principal, "cancelled");
      // Its place is free at once: what is left of it is the backend's cancellation.
      this.running.get(id)?.controller.abort(cancelled());
      this.untrack(id);
      await this.options.bus?.publish(CANCEL_CHANNEL, id);
      this.waits.changed(id);
    }
    return done.task;
  }

  /**
   * Runs an approved call here as its task (already claimed `working` by
   * this instance), as its caller, carrying the approval's binding; stores
   * how it ended, and resolves when that is stored.
   */
  runApproved(task: TaskRecord, binding: string): Promise<void> {
    const controller = new AbortController();
    this.track(task.id, controller, task.caller.id);
    this.waits.changed(task.id);
    const redaction = redactionSeen({});
    const run = this.options.call(task.path, task.args, {
      signal: controller.signal,
      principal: task.caller,
      approved: binding,
      redacted: redaction.seen,
    });
    return this.finish(task.id, run, redaction.happened);
  }

  /** Says a task changed, here and to the other instances, waking whoever waits for it. */
  changed(id: string): void {
    this.waits.changed(id);
  }

  /** Resolves at the task's next change, after `ms`, or when `signal` aborts. */
  nextChange(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return this.waits.next(id, ms, signal);
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.unsubscribe?.();
    this.waits.close();
    for (const { controller } of this.running.values()) controller.abort(cancelled());
  }

  /** Stores how a task's call ended, unless it was cancelled or is no longer this instance's. */
  private async finish(
    id: string,
    run: Promise<CallOutput>,
    redacted: () => boolean,
  ): Promise<void> {
    const { book, settings } = this.options;
    let change: (t: TaskRecord) => TaskRecord;
    try {
      const out = await run;
      const outcome = {
        is_error: out.isError,
        output: out.output,
        ...(out.truncated && { truncated: true as const }),
        ...(redacted() && { redacted: true as const }),
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
      this.untrack(id);
      this.waits.changed(id);
    }
  }

  private track(id: string, controller: AbortController, owner: string): void {
    this.running.set(id, { controller, owner });
    this.perCaller.set(owner, (this.perCaller.get(owner) ?? 0) + 1);
  }

  private untrack(id: string): void {
    const owner = this.running.get(id)?.owner;
    if (owner === undefined) return;
    this.running.delete(id);
    const left = (this.perCaller.get(owner) ?? 1) - 1;
    if (left > 0) this.perCaller.set(owner, left);
    else this.perCaller.delete(owner);
  }

  /** A new task's record, not yet stored. */
  draft(
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

  /** Audits a step of a task: proposed, approved, denied, executed, delivered, cancelled. */
  record(task: TaskRecord, actor: Principal, outcome: string): void {
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

/** Whether redaction removed something from a call's answer, passed on to its caller too. */
function redactionSeen(caller: Pick<CallerContext, "redacted">): {
  seen: () => void;
  happened: () => boolean;
} {
  let redacted = false;
  return {
    seen: () => {
      redacted = true;
      caller.redacted?.();
    },
    happened: () => redacted,
  };
}

/** Who may know of a task: its caller, an admin of its path, and who may approve its calls. */
function mayKnow(principal: Principal, task: TaskRecord): boolean {
  return (
    principal.id === task.caller.id ||
    allows(principal, "admin", task.path) ||
    (task.approval !== undefined && allows(principal, "approve", task.path))
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
