/**
 * A task: one tool call kept in the state store, so that it outlives the
 * request that started it, waits for a person's approval where the config asks
 * for one, and is answered to its caller by any instance sharing the store.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Principal } from "../contract/router.js";

export const TASK_STATUSES = [
  "working",
  "awaiting_approval",
  "completed",
  "failed",
  "cancelled",
  "denied",
  "expired",
] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The statuses a task never leaves. */
export const TERMINAL: ReadonlySet<TaskStatus> = new Set([
  "completed",
  "failed",
  "cancelled",
  "denied",
  "expired",
]);

/** What a finished call gave, as `meta_call` gives it and as MCP returns it. */
export interface TaskOutcome {
  readonly is_error: boolean;
  readonly output: unknown;
  readonly truncated?: true;
  readonly redacted?: true;
  /** The MCP tool result, for a client of the Tasks extension. */
  readonly result: CallToolResult;
}

/** Why a task failed, as the broker's errors say it. */
export interface TaskError {
  readonly kind: string;
  readonly message: string;
}

/** What an approval is bound to, and what became of it. */
export interface TaskApproval {
  /** The rule's path glob that asked for it. */
  readonly rule: string;
  /** SHA-256 over the caller, the path, the arguments' digest and the policy in force. */
  readonly binding: string;
  /** SHA-256 of the config parts that decide the call, when it was asked. */
  readonly policy_sha256: string;
  /** Until when it may be given. */
  readonly expires_at: string;
  /** Who may approve it: a person with the `approve` scope, or the caller at its client. */
  readonly approver: "scope" | "caller";
  readonly decided_by?: string;
  readonly decided_at?: string;
  readonly reason?: string;
}

export interface TaskRecord {
  readonly id: string;
  readonly status: TaskStatus;
  /** The tool's path. */
  readonly path: string;
  /** Who made the call, with the scopes it had. */
  readonly caller: Principal;
  readonly args: Record<string, unknown>;
  readonly args_sha256: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** When the record is forgotten (`tasks.ttl_s` after it was created). */
  readonly expires_at: string;
  /** The instance that runs it, while it runs. */
  readonly instance?: string;
  readonly status_message?: string;
  readonly approval?: TaskApproval;
  readonly outcome?: TaskOutcome;
  readonly error?: TaskError;
  /** When its caller was given the result (a repeat of an approved call is given it once). */
  readonly delivered_at?: string;
}

/** A task as its caller and approvers see it: the record less the instance and the caller's scopes. */
export interface TaskView {
  readonly id: string;
  readonly status: TaskStatus;
  readonly path: string;
  readonly caller: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly expires_at: string;
  readonly args_sha256: string;
  readonly status_message?: string;
  readonly approval?: Omit<TaskApproval, "binding">;
  /** The arguments, for those who decide on the call (its caller sees its own too). */
  readonly args?: Record<string, unknown>;
  /** As `meta_call` answers, when completed. */
  readonly result?: {
    readonly path: string;
    readonly is_error: boolean;
    readonly output: unknown;
    readonly truncated?: true;
    readonly redacted?: true;
  };
  readonly error?: TaskError;
}

export function viewOf(task: TaskRecord): TaskView {
  const { approval, outcome } = task;
  return {
    id: task.id,
    status: task.status,
    path: task.path,
    caller: task.caller.id,
    created_at: task.created_at,
    updated_at: task.updated_at,
    expires_at: task.expires_at,
    args_sha256: task.args_sha256,
    ...(task.status_message !== undefined && { status_message: task.status_message }),
    ...(approval !== undefined && { approval: withoutBinding(approval), args: task.args }),
    ...(outcome !== undefined && {
      result: {
        path: task.path,
        is_error: outcome.is_error,
        output: outcome.output,
        ...(outcome.truncated && { truncated: true }),
        ...(outcome.redacted && { redacted: true }),
      },
    }),
    ...(task.error !== undefined && { error: task.error }),
  };
}

function withoutBinding({
  binding: _binding,
  ...rest
}: TaskApproval): Omit<TaskApproval, "binding"> {
  return rest;
}
