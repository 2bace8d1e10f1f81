import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ServerCapabilities,
  type ServerResult,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Broker } from "../../../broker/broker.js";
import { BrokerError } from "../../../contract/errors.js";
import type { CallerContext, Principal } from "../../../contract/router.js";
import type { TaskRecord, TaskStatus } from "../../../tasks/task.js";
import { toCallToolResult } from "./call-result.js";
import { handleRequest } from "./handle-request.js";
import { isModern, type Era, type HandlerHost } from "./handler-host.js";
import { protocolError } from "./protocol-error.js";
import type { RequestExtra } from "./request-context.js";

/** MCP's Tasks extension (2026-07-28), by its id in capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/**
 * The capabilities an endpoint declares in its revision: with the Tasks
 * extension (every tool call may become a task) in 2026-07-28, which alone
 * has it; a 2025-era session is not told of what it cannot use.
 */
export function declaringTasks(capabilities: ServerCapabilities, era: Era): ServerCapabilities {
  if (!isModern(era)) return capabilities;
  return {
    ...capabilities,
    extensions: { ...capabilities.extensions, ...TASKS_CAPABILITY.extensions },
  };
}

const TASKS_CAPABILITY = { extensions: { [TASKS_EXTENSION]: {} } };

/** How often a client is told to ask after a task. */
const POLL_INTERVAL_MS = 1000;

/** Whether the request's client declared the Tasks extension (per request, in 2026-07-28). */
export function followsTasks(extra: RequestExtra): boolean {
  const extensions = extra.clientCapabilities?.extensions as Record<string, unknown> | undefined;
  return extra.tasks === true && extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * A tool call for a client of the Tasks extension: answered in place when
 * it ends within `tasks.answer_within_ms`, else (and always when it waits
 * for an approval) as the extension's CreateTaskResult, the task stored
 * before the answer leaves; for any other client, the call as it is.
 */
export async function callTool(
  broker: Broker,
  path: string,
  args: Record<string, unknown>,
  ctx: CallerContext,
  extra: RequestExtra,
): Promise<ServerResult> {
  if (!followsTasks(extra)) return toCallToolResult(await broker.call(path, args, ctx));
  const started = await broker.tasks.start(path, args, ctx, broker.tasks.settings.answerWithinMs);
  if ("output" in started) return toCallToolResult(started.output);
  const { task } = started;
  return {
    resultType: "task",
    ...taskFields(task),
  } as ServerResult;
}

const TaskIdParams = z.object({ taskId: z.string().min(1) }).loose();
const TasksGet = z.object({ method: z.literal("tasks/get"), params: TaskIdParams });
const TasksCancel = z.object({ method: z.literal("tasks/cancel"), params: TaskIdParams });
// Its `inputResponses` are taken off the params by the SDK, as on every request of 2026-07-28.
const TasksUpdate = z.object({ method: z.literal("tasks/update"), params: TaskIdParams });

/**
 * `tasks/get` (the task, with its result or error inlined once finished),
 * `tasks/cancel` and `tasks/update`, for the caller of the task (or an
 * admin). A request whose client did not declare the extension is refused
 * with -32021 naming it, an unknown task with -32602. No broker task waits
 * for its client's input, so `tasks/update` only acknowledges.
 */
export function serveTaskMethods(
  host: HandlerHost,
  broker: Broker,
  principal: () => Principal,
): void {
  const handling = { log: broker.log };
  handleRequest(host, TasksGet, handling, async (request, extra) => {
    const task = await ownTask(broker, request.params.taskId, principal(), extra);
    return detailed(task) as ServerResult;
  });
  handleRequest(host, TasksCancel, handling, async (request, extra) => {
    await ownTask(broker, request.params.taskId, principal(), extra);
    await broker.tasks.cancel(request.params.taskId, principal());
    return {};
  });
  handleRequest(host, TasksUpdate, handling, async (request, extra) => {
    await ownTask(broker, request.params.taskId, principal(), extra);
    return {};
  });
}

async function ownTask(
  broker: Broker,
  id: string,
  principal: Principal,
  extra: RequestExtra,
): Promise<TaskRecord> {
  if (!followsTasks(extra)) {
    throw new ProtocolError(
      -32021,
      `tasks/* needs the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities`,
      { requiredCapabilities: TASKS_CAPABILITY },
    );
  }
  try {
    return await broker.tasks.get(id, principal);
  } catch (err) {
    if (err instanceof BrokerError && err.kind === "not_found")
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
    throw err;
  }
}

/** The extension's status of a broker task: waiting for a person is working, said in its message. */
function statusOf(status: TaskStatus): "working" | "completed" | "failed" | "cancelled" {
  switch (status) {
    case "working":
    case "awaiting_approval":
      return "working";
    case "completed":
    case "cancelled":
      return status;
    default:
      return "failed";
  }
}

function taskFields(task: TaskRecord): Record<string, unknown> {
  return {
    taskId: task.id,
    status: statusOf(task.status),
    ...(task.status_message !== undefined && { statusMessage: task.status_message }),
    createdAt: task.created_at,
    lastUpdatedAt: task.updated_at,
    ttlMs: Math.max(1, Date.parse(task.expires_at) - Date.parse(task.created_at)),
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

/** The extension's DetailedTask: the result inlined when completed, the error when failed. */
function detailed(task: TaskRecord): Record<string, unknown> {
  const fields = taskFields(task);
  if (task.status === "completed" && task.outcome) {
    return { ...fields, result: task.outcome.result satisfies CallToolResult };
  }
  if (fields.status !== "failed") return fields;
  const error = protocolError(
    new BrokerError(
      (task.error?.kind ?? "forbidden") as BrokerError["kind"],
      task.error?.message ?? `the call was not run: ${task.status_message ?? task.status}`,
    ),
  );
  return {
    ...fields,
    error: {
      code: error.code,
      message: error.message,
      ...(error.data !== undefined && { data: error.data }),
    },
  };
}
