import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import { PRELUDE, SCRIPT_FILE, wrapScript } from "./prelude.js";
import type {
  LogEntry,
  ScriptEnd,
  ScriptLimits,
  ScriptOutcome,
  WorkerFailureKind,
} from "./protocol.js";

/** What a running script reaches outside the sandbox. */
export interface ScriptHost {
  /** One call of the script (`call`, `search`…): its arguments and answer as JSON text. */
  ask(op: string, json: string): Promise<string>;
  /** Whether the script must stop now: read between its instructions. */
  shouldStop(): boolean;
}

/** A run in progress: its outcome, and a way to stop it while it waits for the host. */
export interface ScriptRun {
  readonly outcome: Promise<ScriptOutcome>;
  stop(): void;
}

const LEVELS = new Set<string>(["log", "info", "warn", "error"]);

/**
 * Runs one script in a QuickJS runtime of its own, made for it and freed
 * after it, with a bounded heap and stack and an interrupt handler that ends
 * it once the host says so (its deadline passed, or it was cancelled). The
 * runtime holds nothing of the host but the two functions the prelude wraps.
 */
export function runScript(
  quickjs: QuickJSWASMModule,
  code: string,
  limits: ScriptLimits,
  host: ScriptHost,
): ScriptRun {
  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => host.shouldStop());
  const context = runtime.newContext();
  const logs = new LogBook(limits);
  const waiting = new Set<QuickJSDeferredPromise>();
  let finished = false;
  let settle: (outcome: ScriptOutcome) => void = () => undefined;
  const outcome = new Promise<ScriptOutcome>((resolve) => (settle = resolve));

  const finish = (result: ScriptEnd) => {
    if (finished) return;
    finished = true;
    for (const deferred of waiting) deferred.dispose();
    waiting.clear();
    context.dispose();
    runtime.dispose();
    settle({ ...result, logs: logs.entries() });
  };
  const fail = (kind: WorkerFailureKind, message: string, line?: number, callKind?: string) =>
    finish({ ok: false, kind, message, line, callKind });

  const ask = context.newFunction("__host", (opHandle, jsonHandle) => {
    const op = context.getString(opHandle);
    const json = context.getString(jsonHandle);
    const deferred = context.newPromise();
    waiting.add(deferred);
    void host.ask(op, json).then((answer) => {
      if (finished) return;
      waiting.delete(deferred);
      const text = context.newString(answer);
      deferred.resolve(text);
      text.dispose();
      deferred.dispose();
      drain();
    });
    return deferred.handle;
  });
  const log = context.newFunction("__log", (levelHandle, messageHandle) => {
    const level = context.getString(levelHandle);
    if (LEVELS.has(level)) logs.add(level as LogEntry["level"], context.getString(messageHandle));
  });
  context.setProp(context.global, "__host", ask);
  context.setProp(context.global, "__log", log);
  ask.dispose();
  log.dispose();

  // Runs what the resolved host answers made ready; a failure inside is the script's.
  const drain = () => {
    if (finished) return;
    const ran = runtime.executePendingJobs();
    if (ran.error) {
      const error = describe(context, ran.error);
      ran.error.dispose();
      fail(error.kind, error.message, error.line, error.callKind);
    }
  };

  const prelude = context.evalCode(PRELUDE, "prelude.js");
  if (prelude.error) {
    const error = describe(context, prelude.error);
    prelude.error.dispose();
    // Stopped before it began (its time ran out while it waited for a worker), or out of memory.
    if (error.kind !== "script_error") fail(error.kind, error.message);
    else fail("script_error", `the sandbox could not start: ${error.message}`);
    return { outcome, stop: () => undefined };
  }
  prelude.value.dispose();

  const started = context.evalCode(wrapScript(code), SCRIPT_FILE);
  if (started.error) {
    const error = describe(context, started.error);
    started.error.dispose();
    fail(error.kind, error.message, error.line);
    return { outcome, stop: () => undefined };
  }
  const done = context.resolvePromise(started.value);
  started.value.dispose();
  void done.then((result) => {
    if (finished) {
      (result.error ?? result.value).dispose();
      return;
    }
    if (result.error) {
      const error = describe(context, result.error);
      result.error.dispose();
      fail(error.kind, error.message, error.line, error.callKind);
      return;
    }
    const json = context.getString(result.value);
    result.value.dispose();
    if (json.length > limits.maxResultChars) {
      fail(
        "result_too_large",
        `the script returned ${json.length} characters of JSON, more than ${limits.maxResultChars}; return less (filter, count or summarize inside the script)`,
      );
      return;
    }
    finish({ ok: true, resultJson: json });
  });
  drain();
  return {
    outcome,
    stop: () => fail("interrupted", "the script was stopped"),
  };
}

/** A script's error as the caller is told it: its kind, message and line, never a stack. */
function describe(
  context: QuickJSContext,
  handle: QuickJSHandle,
): { kind: WorkerFailureKind; message: string; line?: number; callKind?: string } {
  const error: unknown = context.dump(handle);
  if (typeof error !== "object" || error === null)
    return { kind: "script_error", message: `the script threw ${String(error).slice(0, 500)}` };
  const { name, message, stack, kind } = error as Record<string, unknown>;
  const text = typeof message === "string" ? message.slice(0, 2000) : "the script failed";
  const line = lineOf(stack);
  if (name === "InternalError" && text === "interrupted")
    return { kind: "interrupted", message: text, line };
  if (name === "InternalError" && text === "out of memory")
    return { kind: "memory", message: "the script ran out of memory", line };
  if (typeof kind === "string")
    return { kind: "script_error", message: text, line, callKind: kind };
  return {
    kind: "script_error",
    message: typeof name === "string" ? `${name}: ${text}` : text,
    line,
  };
}

const FRAME = new RegExp(`${SCRIPT_FILE.replace(".", "\\.")}:(\\d+)`);

function lineOf(stack: unknown): number | undefined {
  if (typeof stack !== "string") return undefined;
  const match = FRAME.exec(stack);
  return match ? Number(match[1]) : undefined;
}

/** What the script logged, up to its bounds, and an entry saying what was dropped. */
class LogBook {
  private readonly kept: LogEntry[] = [];
  private chars = 0;
  private dropped = 0;

  constructor(private readonly limits: ScriptLimits) {}

  add(level: LogEntry["level"], message: string): void {
    if (this.kept.length >= this.limits.maxLogEntries || this.chars >= this.limits.maxLogChars) {
      this.dropped++;
      return;
    }
    const room = this.limits.maxLogChars - this.chars;
    const kept = message.length > room ? `${message.slice(0, room)}…` : message;
    this.chars += kept.length;
    this.kept.push({ level, message: kept });
  }

  entries(): LogEntry[] {
    return this.dropped === 0
      ? [...this.kept]
      : [...this.kept, { level: "warn", message: `${this.dropped} more log entries were dropped` }];
  }
}
