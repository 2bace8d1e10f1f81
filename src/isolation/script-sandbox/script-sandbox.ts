import { Worker } from "node:worker_threads";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import { FairQueue } from "../fair-queue.js";
import type { FromWorker, ScriptLimits, ScriptOutcome, ToWorker } from "./protocol.js";

const WORKER = new URL(
  `./sandbox-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  import.meta.url,
);

/** How long a stopped run has to end before its worker is ended with it. */
const STOP_GRACE_MS = 2000;

export interface ScriptSandboxOptions {
  /** Worker threads that run scripts, started when needed. */
  readonly workers: number;
  /** Runs one worker takes at once (they take turns whenever one waits for the host). */
  readonly runsPerWorker: number;
  /** Runs one caller may have waiting; more are refused (`rate_limited`). */
  readonly maxWaitingPerCaller: number;
  /** Runs all callers may have waiting; more are refused (`unavailable`). */
  readonly maxWaiting: number;
  readonly log: Logger;
}

export interface ScriptRequest {
  readonly code: string;
  readonly limits: ScriptLimits;
  /** Epoch milliseconds by which the run ends, waiting included. */
  readonly deadline: number;
  /** The caller gave up. */
  readonly signal: AbortSignal;
  /** Answers one call of the script, as JSON text. */
  readonly ask: (op: string, json: string) => Promise<string>;
}

interface Slot {
  worker: Worker | undefined;
  ready: Promise<Worker> | undefined;
  readonly runs: Map<number, ActiveRun>;
}

interface ActiveRun {
  readonly request: ScriptRequest;
  readonly stop: Int32Array;
  readonly settle: (outcome: ScriptOutcome) => void;
}

interface Waiter {
  readonly request: ScriptRequest;
  readonly settle: (outcome: ScriptOutcome) => void;
}

/**
 * Worker threads that run scripts in QuickJS (run-script.ts), for many
 * callers: runs beyond what the workers take wait in turns between callers
 * (FairQueue); a run is stopped at its deadline or when its caller gives up,
 * wherever it is (a shared flag its interrupt handler reads while it
 * computes, a message while it waits), and a worker that does not end a
 * stopped run in time is ended with everything on it. A computing script
 * holds a worker, never the broker's thread.
 *
 * @example
 * const sandbox = new ScriptSandbox({ workers: 2, runsPerWorker: 8, maxWaitingPerCaller: 16, maxWaiting: 256, log });
 * const outcome = await sandbox.run(principal.id, { code: "return 1 + 1", limits, deadline, signal, ask });
 */
export class ScriptSandbox {
  private readonly slots: Slot[];
  private readonly queue: FairQueue<Waiter>;
  private nextRun = 0;
  private closed = false;

  constructor(private readonly options: ScriptSandboxOptions) {
    this.slots = Array.from({ length: options.workers }, () => ({
      worker: undefined,
      ready: undefined,
      runs: new Map(),
    }));
    this.queue = new FairQueue(options.maxWaitingPerCaller, options.maxWaiting);
  }

  /** Runs a script for a caller; its outcome, or a refusal when too many runs wait. */
  run(caller: string, request: ScriptRequest): Promise<ScriptOutcome> {
    if (this.closed) throw new BrokerError("unavailable", "the broker is shutting down");
    return new Promise<ScriptOutcome>((settle) => {
      const slot = this.freeSlot();
      if (slot) {
        this.start(slot, caller, request, settle);
        return;
      }
      const leave = () => {
        if (this.queue.remove(caller, waiter)) waiter.settle(stopped(request));
      };
      const timer = setTimeout(leave, Math.max(0, request.deadline - Date.now()));
      timer.unref();
      const waiter: Waiter = {
        request,
        settle: (outcome) => {
          clearTimeout(timer);
          request.signal.removeEventListener("abort", leave);
          settle(outcome);
        },
      };
      if (!this.queue.push(caller, waiter)) {
        clearTimeout(timer);
        throw this.queue.waitingFor(caller) >= this.options.maxWaitingPerCaller
          ? new BrokerError(
              "rate_limited",
              `this caller has ${this.options.maxWaitingPerCaller} scripts waiting to run; wait for one to end`,
            )
          : new BrokerError(
              "unavailable",
              "too many scripts are waiting to run; try again shortly",
            );
      }
      request.signal.addEventListener("abort", leave, { once: true });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker?.terminate()));
  }

  private freeSlot(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.slots) {
      if (slot.runs.size >= this.options.runsPerWorker) continue;
      if (!best || slot.runs.size < best.runs.size) best = slot;
    }
    return best;
  }

  private start(
    slot: Slot,
    caller: string,
    request: ScriptRequest,
    settle: (o: ScriptOutcome) => void,
  ): void {
    const id = ++this.nextRun;
    const buffer = new SharedArrayBuffer(4);
    const stop = new Int32Array(buffer);
    let stopTimer: NodeJS.Timeout | undefined;
    let posted = false;
    const halt = () => {
      Atomics.store(stop, 0, 1);
      // Not yet handed to its worker (still starting): the run ends here, and the worker
      // starts on for the next one, rather than being ended for a run it never saw.
      if (!posted) return slot.runs.get(id)?.settle(stopped(request));
      slot.worker?.postMessage({ type: "cancel", run: id } satisfies ToWorker);
      // A worker that cannot end the run in time is ended, and the run with it.
      stopTimer ??= setTimeout(
        () => this.endWorker(slot, "a stopped script did not end"),
        STOP_GRACE_MS,
      );
      stopTimer.unref();
    };
    const deadlineTimer = setTimeout(halt, Math.max(0, request.deadline - Date.now()));
    deadlineTimer.unref();
    request.signal.addEventListener("abort", halt, { once: true });
    slot.runs.set(id, {
      request,
      stop,
      settle: (outcome) => {
        clearTimeout(deadlineTimer);
        clearTimeout(stopTimer);
        request.signal.removeEventListener("abort", halt);
        slot.runs.delete(id);
        settle(outcome);
        this.takeNext();
      },
    });
    void this.workerOf(slot).then(
      (worker) => {
        if (!slot.runs.has(id)) return;
        posted = true;
        worker.postMessage({
          type: "run",
          run: id,
          owner: caller,
          code: request.code,
          limits: request.limits,
          deadline: request.deadline,
          stop: buffer,
        } satisfies ToWorker);
      },
      (err: Error) => {
        this.options.log.error({ err: err.message }, "a script sandbox worker could not start");
        slot.runs.get(id)?.settle(failed("the script sandbox could not start; see the broker log"));
      },
    );
  }

  private takeNext(): void {
    for (;;) {
      const slot = this.freeSlot();
      if (!slot) return;
      const next = this.queue.take();
      if (!next) return;
      this.start(slot, next.caller, next.item.request, next.item.settle);
    }
  }

  private workerOf(slot: Slot): Promise<Worker> {
    slot.ready ??= new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER, {
        // Idle engines it keeps: one per run it takes at once.
        workerData: this.options.runsPerWorker,
        execArgv: WORKER.pathname.endsWith(".ts") ? ["--import", import.meta.resolve("tsx")] : [],
        // A worker's own heap; scripts' heaps are QuickJS's, bounded per run.
        resourceLimits: { maxOldGenerationSizeMb: 128 },
        env: {},
        stdout: true,
        stderr: true,
      });
      worker.unref();
      slot.worker = worker;
      worker.on("message", (message: FromWorker) => {
        if (message.type === "ready") resolve(worker);
        else this.fromWorker(slot, worker, message);
      });
      worker.on("error", (err) => {
        reject(err);
        this.options.log.error({ err: err.message }, "a script sandbox worker failed");
      });
      worker.on("exit", () => {
        if (slot.worker !== worker) return;
        slot.worker = undefined;
        slot.ready = undefined;
        for (const run of [...slot.runs.values()])
          run.settle(
            Atomics.load(run.stop, 0) !== 0
              ? stopped(run.request)
              : failed("the script sandbox ended; see the broker log"),
          );
      });
    });
    return slot.ready;
  }

  private fromWorker(slot: Slot, worker: Worker, message: FromWorker): void {
    if (message.type === "done") {
      slot.runs.get(message.run)?.settle(message.outcome);
      return;
    }
    if (message.type !== "ask") return;
    const run = slot.runs.get(message.run);
    if (!run) return;
    // An answer is always sent: a host that failed is an internal error, never a script left waiting.
    const asked = run.request.ask(message.op, message.json).catch((err: unknown) => {
      this.options.log.error({ err }, "a script's call failed inside the broker");
      return JSON.stringify({
        ok: false,
        error: { kind: "internal", message: "internal error in the broker; see its log" },
      });
    });
    void asked.then((json) => {
      if (slot.runs.get(message.run) !== run) return;
      worker.postMessage({
        type: "answer",
        run: message.run,
        seq: message.seq,
        json,
      } satisfies ToWorker);
    });
  }

  private endWorker(slot: Slot, why: string): void {
    this.options.log.warn({ why }, "ending a script sandbox worker");
    void slot.worker?.terminate();
  }
}

function stopped(request: ScriptRequest): ScriptOutcome {
  return {
    ok: false,
    kind: "interrupted",
    message: request.signal.aborted ? "the caller gave up" : "the script ran out of time",
    logs: [],
  };
}

function failed(message: string): ScriptOutcome {
  return { ok: false, kind: "script_error", message, logs: [] };
}
