import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from "quickjs-emscripten-core";
import { nameMeant } from "../../contract/did-you-mean.js";
import { engineIsFull } from "./engine.js";
import { LogBook } from "./log-book.js";
import { PRELUDE, SCRIPT_FILE, SCRIPT_GLOBALS, wrapScript } from "./prelude.js";
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
  /** Whether its engine is as sound as before (no trap): it may serve another run. */
  sound(): boolean;
}

const LEVELS = new Set<string>(["log", "info", "warn", "error"]);

/**
 * Runs one script in a QuickJS engine no other run uses meanwhile (see
 * engine.ts and engine-pool.ts), with a bounded heap and stack and an
 * interrupt handler that ends it once the host says so (its deadline passed,
 * or it was cancelled). The runtime holds nothing of the host but the three
 * functions the prelude takes and hides.
 */
export function runScript(
  quickjs: QuickJSWASMModule,
  code: string,
  limits: ScriptLimits,
  host: ScriptHost,
): ScriptRun {
  const run = new QuickJSRun(quickjs, limits, host);
  run.guarded(() => run.start(code));
  return {
    outcome: run.outcome,
    stop: () => run.fail("interrupted", "the script was stopped"),
    sound: () => !run.trapped,
  };
}

class QuickJSRun {
  readonly outcome: Promise<ScriptOutcome>;
  private settle: (outcome: ScriptOutcome) => void = () => undefined;
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private readonly logs: LogBook;
  private readonly waiting = new Set<QuickJSDeferredPromise>();
  /** `(n) => { new ArrayBuffer(n) }`: a block taken and let go inside QuickJS, which checks it. */
  private room: QuickJSHandle | undefined;
  /** The prelude's: ends the run with the JSON text of what a script's promise gives. */
  private whenDone: QuickJSHandle | undefined;
  private finished = false;
  /** The engine trapped: its memory may be corrupt. */
  trapped = false;

  constructor(
    private readonly quickjs: QuickJSWASMModule,
    private readonly limits: ScriptLimits,
    private readonly host: ScriptHost,
  ) {
    this.outcome = new Promise<ScriptOutcome>((resolve) => (this.settle = resolve));
    this.runtime = quickjs.newRuntime();
    this.runtime.setMemoryLimit(limits.memoryBytes);
    this.runtime.setMaxStackSize(limits.stackBytes);
    this.runtime.setInterruptHandler(() => host.shouldStop());
    this.context = this.runtime.newContext();
    this.logs = new LogBook(limits);
  }

  start(code: string): void {
    const { context } = this;
    const ask = context.newFunction("__host", (op, json) =>
      this.ask(context.getString(op), context.getString(json)),
    );
    const log = context.newFunction("__log", (levelHandle, messageHandle) => {
      const level = context.getString(levelHandle);
      if (LEVELS.has(level))
        this.logs.add(level as LogEntry["level"], context.getString(messageHandle));
    });
    const end = context.newFunction("__end", (ok, value) =>
      this.guarded(() => (context.dump(ok) === true ? this.returned(value) : this.threw(value))),
    );
    for (const [name, fn] of [
      ["__host", ask],
      ["__log", log],
      ["__end", end],
    ] as const) {
      context.setProp(context.global, name, fn);
      fn.dispose();
    }

    for (const [source, file] of [
      [PRELUDE, "prelude.js"],
      ["(n) => { new ArrayBuffer(n); }", "room.js"],
    ] as const) {
      const evaluated = context.evalCode(source, file);
      if (evaluated.error) {
        const error = describe(context, evaluated.error);
        evaluated.error.dispose();
        // Stopped before it began (its time ran out while it waited for a worker), or out of memory.
        if (error.kind !== "script_error") this.fail(error.kind, error.message);
        else this.fail("script_error", `the sandbox could not start: ${error.message}`);
        return;
      }
      if (file === "room.js") this.room = evaluated.value;
      else this.whenDone = evaluated.value;
    }

    const started = context.evalCode(wrapScript(code), SCRIPT_FILE);
    if (started.error) {
      const error = describe(context, started.error);
      started.error.dispose();
      this.fail(error.kind, error.message, error.line);
      return;
    }
    const waited = context.callFunction(this.whenDone!, context.undefined, started.value);
    started.value.dispose();
    (waited.error ?? waited.value).dispose();
    this.drain();
  }

  fail(kind: WorkerFailureKind, message: string, line?: number, callKind?: string): void {
    this.finish({ ok: false, kind, message, line, callKind });
  }

  /**
   * Runs host code that drives the engine: a trap (its memory corrupted by
   * an allocation that failed unchecked) ends the run, and the engine, made
   * for this run alone, is dropped with it.
   */
  guarded(work: () => void): void {
    try {
      work();
    } catch (err) {
      this.trapped = true;
      this.fail(
        engineIsFull(this.quickjs, this.limits.memoryBytes) ? "memory" : "script_error",
        `the script's engine stopped: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  private ask(op: string, json: string): QuickJSHandle {
    const deferred = this.context.newPromise();
    this.waiting.add(deferred);
    void this.host.ask(op, json).then((answer) =>
      this.guarded(() => {
        if (this.finished) return;
        this.waiting.delete(deferred);
        const noRoom = this.roomFor(answer);
        if (noRoom) {
          // Stopped while it made room (its time ran out), or out of memory.
          if (noRoom.kind === "interrupted") this.fail("interrupted", noRoom.message);
          else this.fail("memory", "the script ran out of memory taking the answer of a call");
          return;
        }
        const text = this.context.newString(answer);
        deferred.resolve(text);
        text.dispose();
        deferred.dispose();
        this.drain();
      }),
    );
    return deferred.handle;
  }

  /**
   * Makes room in the engine for a string, or says why it could not:
   * quickjs-emscripten copies a string in with an allocation it does not
   * check (a failed one writes from address 0), then QuickJS makes its own
   * string of it. Room for both, made inside QuickJS and let go just before,
   * is there for them.
   */
  private roomFor(text: string): ReturnType<typeof describe> | undefined {
    const utf8 = Buffer.byteLength(text);
    const latin1 = utf8 === text.length;
    const size = this.context.newNumber(utf8 + 1 + (latin1 ? utf8 : 2 * text.length) + 256);
    const made = this.context.callFunction(this.room!, this.context.undefined, size);
    size.dispose();
    if (!made.error) {
      made.value.dispose();
      return undefined;
    }
    const why = describe(this.context, made.error);
    made.error.dispose();
    return why;
  }

  /** Runs what the resolved host answers made ready; a failure inside is the script's. */
  private drain(): void {
    if (this.finished) return;
    const ran = this.runtime.executePendingJobs();
    if (ran.error) {
      const error = describe(this.context, ran.error);
      ran.error.dispose();
      this.fail(error.kind, error.message, error.line, error.callKind);
    }
  }

  /** The script returned: `value` is its JSON text. */
  private returned(value: QuickJSHandle): void {
    if (this.finished) return;
    const json = this.context.getString(value);
    if (json.length > this.limits.maxResultChars) {
      this.fail(
        "result_too_large",
        `the script returned ${json.length} characters of JSON, more than ${this.limits.maxResultChars}; return less (filter, count or summarize inside the script)`,
      );
      return;
    }
    // Text read out of an engine whose copy-out failed unchecked is not JSON: never passed on.
    try {
      JSON.parse(json);
    } catch {
      this.fail("memory", "the script ran out of memory returning its result");
      return;
    }
    this.finish({ ok: true, resultJson: json });
  }

  /** The script threw `value`, or its result has no JSON text. */
  private threw(value: QuickJSHandle): void {
    if (this.finished) return;
    const error = describe(this.context, value);
    this.fail(error.kind, error.message, error.line, error.callKind);
  }

  private finish(result: ScriptEnd): void {
    if (this.finished) return;
    this.finished = true;
    this.settle({ ...result, logs: this.logs.entries() });
    // An engine that trapped may fail to free its parts; it is dropped whole all the same.
    try {
      for (const deferred of this.waiting) deferred.dispose();
      this.room?.dispose();
      this.whenDone?.dispose();
      this.context.dispose();
      this.runtime.dispose();
    } catch {
      this.trapped = true;
    }
  }
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
    message: typeof name === "string" ? `${name}: ${text}${undefinedName(name, text)}` : text,
    line,
  };
}

/**
 * For a name the script does not have (`'serch' is not defined`), the one of
 * its own it likely meant, or what it has: a model guesses `callTool` or
 * `search_tools` for functions it was told of in other words.
 */
function undefinedName(name: string, text: string): string {
  const missing = name === "ReferenceError" ? /^'(.+)' is not defined$/.exec(text)?.[1] : undefined;
  if (missing === undefined) return "";
  return (
    nameMeant(missing, SCRIPT_GLOBALS) ||
    ` (besides the language a script has ${andList.format(SCRIPT_GLOBALS)})`
  );
}

const andList = new Intl.ListFormat("en", { type: "conjunction" });

const FRAME = new RegExp(`${SCRIPT_FILE.replace(".", "\\.")}:(\\d+)`);

function lineOf(stack: unknown): number | undefined {
  if (typeof stack !== "string") return undefined;
  const match = FRAME.exec(stack);
  return match ? Number(match[1]) : undefined;
}
