import { Worker } from "node:worker_threads";
import { BrokerError } from "../../contract/errors.js";
import type { MathReply, MathRequest } from "./math-protocol.js";

// The worker is a file of its own: `.ts` when the broker runs from source.
const WORKER_URL = new URL(
  `./math-worker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  import.meta.url,
);

/** Distributes `Omit` over the union, so each request keeps its own fields. */
type Unnumbered<T> = T extends unknown ? Omit<T, "id"> : never;

export interface MathLimits {
  /** Longest an expression may take before its thread is stopped. */
  readonly timeoutMs: number;
  /** Heap of the thread; an expression that needs more stops it. */
  readonly maxMemoryMb: number;
}

/**
 * One worker thread with a locked-down mathjs, answering one request at a
 * time. An expression that runs too long or needs too much memory (`1e9!`
 * with big numbers, `zeros(1e5, 1e5)`) ends the thread; the next request
 * starts another, so the broker itself never waits on mathjs.
 */
export class MathThread {
  private worker: Promise<Worker> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;

  constructor(private readonly limits: MathLimits) {}

  run(request: Unnumbered<MathRequest>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const turn = this.queue.then(() =>
      this.send({ ...request, id: this.nextId++ } as MathRequest, signal),
    );
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await (await worker?.catch(() => undefined))?.terminate();
  }

  private async send(request: MathRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const starting = (this.worker ??= this.spawn());
    const worker = await starting.catch((err: unknown) => {
      if (this.worker === starting) this.worker = undefined;
      throw err;
    });
    return new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
      };
      const stop = (error: BrokerError) => {
        finish();
        this.discard(worker);
        reject(error);
      };
      const onMessage = (reply: MathReply) => {
        if (reply.id !== request.id) return;
        finish();
        if (reply.ok) return resolve(reply.data);
        reject(
          new BrokerError(
            "invalid_params",
            reply.position === undefined
              ? `the calculator cannot do that: ${reply.message}`
              : `the expression is not valid at character ${reply.position}: ${reply.message}`,
            reply.position === undefined ? {} : { position: reply.position },
          ),
        );
      };
      const onError = (err: Error & { code?: string }) =>
        stop(
          err.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? new BrokerError(
                "invalid_params",
                `the expression needs more than the calculator's ${this.limits.maxMemoryMb} MB of memory; it was stopped`,
              )
            : new BrokerError("execution_failed", "the calculator failed; see the broker log"),
        );
      const onExit = () => stop(new BrokerError("execution_failed", "the calculator stopped"));
      const onAbort = () => stop(signal.reason as BrokerError);
      const timer = setTimeout(
        () =>
          stop(
            new BrokerError(
              "invalid_params",
              `the expression took longer than ${this.limits.timeoutMs / 1000} s; it was stopped (a smaller problem may work)`,
            ),
          ),
        this.limits.timeoutMs,
      );
      worker.on("message", onMessage);
      worker.once("error", onError);
      worker.once("exit", onExit);
      signal.addEventListener("abort", onAbort, { once: true });
      worker.postMessage(request);
    });
  }

  /** A new thread, once mathjs is loaded in it. */
  private spawn(): Promise<Worker> {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.maxMemoryMb },
      // Not the broker's own Node options: the worker needs no loader (Node strips its types).
      execArgv: [],
    });
    // A thread being stopped may still report its end (out of memory) after its request has
    // been answered: an error with no listener would take the broker down.
    worker.on("error", () => undefined);
    return new Promise((resolve, reject) => {
      const failed = () => {
        void worker.terminate();
        reject(
          new BrokerError("unavailable", "the calculator could not start; see the broker log"),
        );
      };
      worker.once("error", failed);
      worker.once("exit", failed);
      worker.once("message", () => {
        worker.off("error", failed);
        worker.off("exit", failed);
        resolve(worker);
      });
    });
  }

  private discard(worker: Worker): void {
    this.worker = undefined;
    void worker.terminate();
  }
}
