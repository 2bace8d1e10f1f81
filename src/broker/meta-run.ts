import { randomUUID } from "node:crypto";
import { asBrokerError, BrokerError, REFUSAL_KINDS } from "../contract/errors.js";
import type { CallerContext, Principal } from "../contract/router.js";
import type { ScriptOutcome } from "../isolation/script-sandbox/protocol.js";
import type { ScriptSandbox } from "../isolation/script-sandbox/script-sandbox.js";
import type { AuditEntry } from "../policy/audit/index.js";
import { keepTraceContext } from "../telemetry/mcp-operation.js";
import type {
  CallOutput,
  EntryDescription,
  NodeListing,
  RunAnswer,
  RunFailureKind,
  SearchAnswer,
  ToolSearchRequest,
  TypescriptDescription,
} from "./meta-api/answers.js";
import { parseRequest } from "./meta-api/parse-request.js";
import { CallRequest, DescribeRequest, SearchRequest, TreeRequest } from "./meta-api/requests.js";
import type { RunSettings } from "./run-settings.js";

/** The broker's meta API as a script reaches it: every call is its caller's. */
export interface MetaApi {
  call(path: string, args: unknown, caller: CallerContext): Promise<CallOutput>;
  search(
    request: ToolSearchRequest,
    principal: Principal,
    signal?: AbortSignal,
  ): Promise<SearchAnswer>;
  metaDesc(
    request: { path: string; format: "json" | "typescript" },
    principal: Principal,
  ): EntryDescription | TypescriptDescription;
  list(path: string, principal: Principal): NodeListing;
}

export interface RunDeps {
  readonly broker: MetaApi;
  readonly sandbox: ScriptSandbox;
  readonly settings: RunSettings;
  readonly audit: (entry: AuditEntry, source: string) => void;
}

/**
 * Runs a `meta_run` script for a caller: in the sandbox, with each call it
 * makes passed to the broker as the caller's own (its principal, scopes, rate
 * limits, redaction and audit, marked with the run's id), at most
 * `maxCalls` of them and `maxConcurrentCalls` at once. One audit record is
 * written for the run itself.
 */
export async function runScript(
  deps: RunDeps,
  request: { code: string; timeout_s?: number | undefined; report_calls?: boolean | undefined },
  caller: CallerContext,
): Promise<RunAnswer> {
  const runId = randomUUID();
  const started = performance.now();
  const stop = new AbortController();
  const onCallerGone = () => stop.abort(caller.signal.reason);
  caller.signal.addEventListener("abort", onCallerGone, { once: true });
  let calls = 0;
  let tooMany = false;
  const gate = new Gate(deps.settings.maxConcurrentCalls);
  const inner: CallerContext = { ...caller, signal: stop.signal, runId };
  const callLog: NonNullable<RunAnswer["call_log"]> = [];
  const inTrace = keepTraceContext();

  const ask = async (op: string, json: string): Promise<string> => {
    if (++calls > deps.settings.maxCalls) {
      tooMany = true;
      stop.abort(new BrokerError("rate_limited", "too many calls"));
      return failure("too_many_calls", `a script makes at most ${deps.settings.maxCalls} calls`);
    }
    await gate.enter();
    const began = performance.now();
    const log = (outcome: string) =>
      request.report_calls &&
      callLog.push({
        op,
        target: targetOf(json),
        outcome,
        duration_ms: Math.round((performance.now() - began) * 10) / 10,
      });
    try {
      const value = (await inTrace(() => answerCall(deps.broker, op, json, inner))) ?? null;
      log("ok");
      return JSON.stringify({ ok: true, value });
    } catch (err) {
      const e = asBrokerError(err);
      log(e.kind);
      return failure(e.kind, e.message);
    } finally {
      gate.leave();
    }
  };

  let outcome: ScriptOutcome;
  try {
    outcome = await deps.sandbox.run(caller.principal.id, {
      code: request.code,
      limits: deps.settings.limits,
      deadline: Date.now() + (request.timeout_s ?? deps.settings.timeoutS) * 1000,
      signal: stop.signal,
      ask,
    });
  } finally {
    caller.signal.removeEventListener("abort", onCallerGone);
    // Calls the script started and did not wait for end with it.
    stop.abort(new BrokerError("timeout", "the script that made this call has ended"));
  }
  const answer: RunAnswer = {
    run_id: runId,
    ...(outcome.ok
      ? { result: JSON.parse(outcome.resultJson) as unknown }
      : { error: failureOf(outcome, tooMany) }),
    logs: [...outcome.logs],
    calls: Math.min(calls, deps.settings.maxCalls),
    duration_ms: Math.round(performance.now() - started),
    ...(request.report_calls ? { call_log: callLog } : {}),
  };
  deps.audit(
    {
      time: new Date().toISOString(),
      token: caller.principal.id,
      method: "meta_run",
      path: "/",
      outcome: answer.error?.kind ?? "ok",
      duration_ms: answer.duration_ms,
      run_id: runId,
      args: request,
      result: outcome.ok ? { result: answer.result } : undefined,
    },
    "/",
  );
  return answer;
}

/** One call of a script, as the meta tool of the same name answers it. */
async function answerCall(
  broker: MetaApi,
  op: string,
  json: string,
  caller: CallerContext,
): Promise<unknown> {
  const args: unknown = JSON.parse(json);
  switch (op) {
    case "call": {
      const { path, args: callArgs } = parseRequest(CallRequest, withoutKey(args));
      const key = (args as { idempotency_key?: unknown }).idempotency_key;
      const out = await broker.call(path, callArgs, {
        ...caller,
        idempotencyKey: typeof key === "string" ? key : undefined,
      });
      if (out.isError) throw new BrokerError("execution_failed", errorText(out));
      return valueOf(out);
    }
    case "search":
      return broker.search(parseRequest(SearchRequest, args), caller.principal, caller.signal);
    case "describe":
      return broker.metaDesc(parseRequest(DescribeRequest, args), caller.principal);
    case "tree":
      // A script reads every child: what it returns, not the listing, reaches the model.
      return broker.list(parseRequest(TreeRequest, args).path, caller.principal);
    default:
      throw new BrokerError("invalid_params", `no call ${op} in a script`);
  }
}

/** What a tool said of its failure: its text, else its output as JSON; bounded. */
function errorText(out: CallOutput): string {
  const text = out.result.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n");
  return (text || JSON.stringify(out.output)).slice(0, 2000);
}

/**
 * A call's result as a script gets it: the structured content where the tool
 * gives one, else its content blocks (its output as the tool's render mode
 * makes it, where that is text or JSON).
 */
function valueOf(out: CallOutput): unknown {
  if (out.result.structuredContent !== undefined && !out.truncated)
    return out.result.structuredContent;
  const output = out.output as { content?: unknown } | null;
  return typeof output === "object" && output !== null && "content" in output
    ? output.content
    : out.output;
}

/** What a call of a script was about: the path it called or described, or the query. */
function targetOf(json: string): string {
  let args: { path?: unknown; query?: unknown } | null;
  try {
    args = JSON.parse(json) as typeof args;
  } catch {
    return "";
  }
  const target = args?.path ?? args?.query;
  return typeof target === "string" ? target.slice(0, 200) : "";
}

function withoutKey(args: unknown): unknown {
  if (typeof args !== "object" || args === null) return args;
  const { idempotency_key: _key, ...rest } = args as Record<string, unknown>;
  return rest;
}

function failure(kind: string, message: string): string {
  return JSON.stringify({ ok: false, error: { kind, message } });
}

function failureOf(
  outcome: Extract<ScriptOutcome, { ok: false }>,
  tooMany: boolean,
): NonNullable<RunAnswer["error"]> {
  const at = outcome.line === undefined ? {} : { line: outcome.line };
  if (tooMany) {
    return { kind: "too_many_calls", message: "the script made more calls than a run may", ...at };
  }
  const kind: RunFailureKind =
    outcome.kind === "interrupted"
      ? "timeout"
      : outcome.kind === "script_error" &&
          outcome.callKind !== undefined &&
          REFUSAL_KINDS.has(outcome.callKind as never)
        ? "refused"
        : outcome.kind;
  return {
    kind,
    message: kind === "timeout" ? "the script ran out of time (timeout_s)" : outcome.message,
    ...at,
    ...(outcome.callKind === undefined ? {} : { call_kind: outcome.callKind }),
  };
}

/** At most `size` holders at once; the rest wait in order. */
class Gate {
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  enter(): Promise<void> {
    if (this.held < this.size) {
      this.held++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held--;
  }
}
