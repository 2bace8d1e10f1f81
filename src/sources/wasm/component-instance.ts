/**
 * One component instance in a worker thread, seen from the broker. Calls run
 * one at a time (a component instance is single-threaded). A call that traps,
 * outlives its time or exhausts memory fails with a clear error, and the
 * instance is replaced, because a trapped instance can never be entered again
 * and a looping one can only be stopped by ending its thread.
 */
import { Worker } from "node:worker_threads";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import { OutputLines } from "../output-lines.js";
import type { TranspiledComponent } from "./component-cache.js";
import type { RouterExports } from "./wit/router-types.js";
import type { RouterMethod, Sandbox, WorkerReply, WorkerSetup } from "./worker-protocol.js";

/** The case of a WIT `result` a guest returned as its error. */
export class GuestError extends Error {
  override readonly name = "GuestError";
  constructor(
    readonly tag: string,
    readonly val: string,
  ) {
    super(`${tag}: ${val}`);
  }
}

export interface InstanceOptions {
  /** The source's name, for errors and logs. */
  readonly source: string;
  readonly component: TranspiledComponent;
  readonly sandbox: Sandbox;
  /**
   * The instance's limit, in MiB, for its JavaScript heap and its WebAssembly
   * memory each. See memory-ceiling.ts for how the latter is enforced.
   */
  readonly maxMemoryMb: number;
  readonly log: Logger;
}

export interface CallLimits {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
}

// The worker is a file of its own: `.ts` when the broker runs from source.
const WORKER_URL = new URL(
  `./component-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  import.meta.url,
);
const MIB = 1024 * 1024;
/** A trap with memory this close to the limit is taken for exhausted memory. */
const EXHAUSTED = 0.9;

export class ComponentInstance {
  private worker: Worker | undefined;
  private starting: Promise<Worker> | undefined;
  /** Calls wait here for the one before them, whatever its outcome. */
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private closed = false;
  /** Instances replaced after a trap, a timeout or exhausted memory. */
  replacements = 0;
  /** Calls made and not yet answered, the running one included. */
  pending = 0;

  constructor(private readonly options: InstanceOptions) {}

  /** Starts the worker and instantiates the component in it. */
  async start(): Promise<void> {
    await this.ready();
  }

  /** Calls one function of the router, after the calls before it. */
  call<M extends RouterMethod>(
    method: M,
    args: Parameters<RouterExports[M]>,
    limits: CallLimits,
  ): Promise<ReturnType<RouterExports[M]>> {
    this.pending++;
    const run = this.queue.then(() => this.run(method, args, limits)).finally(() => this.pending--);
    this.queue = run.catch(() => undefined);
    return run as Promise<ReturnType<RouterExports[M]>>;
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
    // An instance still starting (a replacement, say) ends as soon as it is up.
    await this.starting?.catch(() => undefined);
  }

  private ready(): Promise<Worker> {
    if (this.worker) return Promise.resolve(this.worker);
    if (this.closed)
      return Promise.reject(
        new BrokerError("unavailable", `source ${this.options.source} is closed`),
      );
    this.starting ??= this.spawn().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private spawn(): Promise<Worker> {
    const { component, sandbox, maxMemoryMb, source, log } = this.options;
    const setup: WorkerSetup = {
      moduleUrl: component.moduleUrl,
      coreModules: component.coreModules,
      sandbox,
    };
    const worker = new Worker(WORKER_URL, {
      workerData: setup,
      // The guest's stdout and stderr go to the log, never to the broker's own.
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb },
      // Not the broker's own Node options: a TypeScript loader there would
      // re-read jco's 1.3 MB of JavaScript for every instance (0.4 s). The
      // worker needs none; Node strips its types when run from source.
      execArgv: [],
    });
    for (const [stream, name] of [
      [worker.stdout, "stdout"],
      [worker.stderr, "stderr"],
    ] as const) {
      const lines = new OutputLines(
        (line) => log.info({ source, stream: name, line }, "component output"),
        (count, sentence) =>
          log.info({ source, stream: name, left_out: count }, `component output: ${sentence}`),
      );
      stream.on("data", (chunk: Buffer) => lines.write(chunk));
      stream.on("end", () => lines.end());
    }
    return new Promise<Worker>((resolve, reject) => {
      const failed = (err: Error) => {
        worker.terminate().catch(() => undefined);
        reject(
          new BrokerError(
            "unavailable",
            `the component could not be instantiated: ${err.message}`,
            { source },
          ),
        );
      };
      worker.once("error", failed);
      worker.once("exit", (code) => failed(new Error(`its thread exited with code ${code}`)));
      worker.once("message", (reply: WorkerReply) => {
        if (!("ready" in reply)) return failed(new Error("it answered before it was ready"));
        if (this.closed) return failed(new Error("the source was closed meanwhile"));
        worker.removeAllListeners("error").removeAllListeners("exit");
        worker.once("exit", () => {
          if (this.worker === worker) this.worker = undefined;
        });
        this.worker = worker;
        resolve(worker);
      });
    });
  }

  private async run(method: RouterMethod, args: readonly unknown[], limits: CallLimits) {
    limits.signal?.throwIfAborted();
    const worker = await this.ready();
    const id = this.nextId++;
    const { source, maxMemoryMb } = this.options;
    return new Promise<unknown>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        limits.signal?.removeEventListener("abort", onAbort);
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        outcome();
      };
      // A guest cannot be interrupted inside a call: ending its thread is the only stop.
      const abandon = (err: BrokerError) =>
        settle(() => {
          this.replace(worker, err.message);
          reject(err);
        });
      const onMessage = (reply: WorkerReply) => {
        if ("ready" in reply || reply.id !== id) return;
        const memoryMb = reply.memoryBytes / MIB;
        if (reply.outcome === "trap")
          return abandon(
            new BrokerError(
              "execution_failed",
              memoryMb >= maxMemoryMb * EXHAUSTED
                ? `component ${source} ran out of memory in ${method} (${Math.round(memoryMb)} MiB; max_memory_mb is ${maxMemoryMb}); its instance was replaced`
                : `component ${source} trapped in ${method}: ${reply.message} (memory ${Math.round(memoryMb)} of ${maxMemoryMb} MiB); its instance was replaced`,
              { source, method },
            ),
          );
        settle(() => {
          // The process-wide ceiling may be above this component's own limit.
          if (memoryMb > maxMemoryMb)
            this.replace(
              worker,
              `its memory grew to ${Math.round(memoryMb)} MiB, above max_memory_mb ${maxMemoryMb}`,
            );
          if (reply.outcome === "ok") resolve(reply.value);
          else reject(new GuestError(reply.tag, reply.val));
        });
      };
      const onError = (err: Error & { code?: string }) =>
        abandon(
          new BrokerError(
            "execution_failed",
            err.code === "ERR_WORKER_OUT_OF_MEMORY"
              ? `component ${source} ran out of memory in ${method}; its instance was replaced`
              : `component ${source} failed in ${method}: ${err.message}; its instance was replaced`,
            { source, method },
          ),
        );
      const onExit = (code: number) =>
        abandon(
          new BrokerError(
            "execution_failed",
            `component ${source} exited (code ${code}) in ${method}; its instance was replaced`,
            { source, method },
          ),
        );
      const onAbort = () =>
        abandon(
          new BrokerError(
            "timeout",
            `the call to ${source} was cancelled; its instance was replaced`,
            {
              source,
              method,
            },
          ),
        );
      const timer = setTimeout(
        () =>
          abandon(
            new BrokerError(
              "timeout",
              `component ${source} did not finish ${method} within ${limits.timeoutMs} ms; its instance was replaced`,
              { source, method, timeout_ms: limits.timeoutMs },
            ),
          ),
        limits.timeoutMs,
      );
      limits.signal?.addEventListener("abort", onAbort, { once: true });
      worker.on("message", onMessage).once("error", onError).once("exit", onExit);
      worker.postMessage({ id, method, args });
    });
  }

  /** Ends the worker and starts a fresh instance, so the next call need not wait for one. */
  private replace(worker: Worker, reason: string): void {
    if (this.worker === worker) this.worker = undefined;
    this.replacements++;
    this.options.log.warn({ source: this.options.source, reason }, "component instance replaced");
    worker.terminate().catch(() => undefined);
    // If this start fails, the next call tries again and reports why it could not.
    if (!this.closed) this.ready().catch(() => undefined);
  }
}
