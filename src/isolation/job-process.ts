import { fork, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { BrokerError } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import type { JobProcessSettings, JobReply, ReadyMessage } from "./job-protocol.js";

/** Why a job's process ended before the job was answered. */
export type StopReason = "timeout" | "memory" | "crashed";

/** A job stopped with its process; the toolset says why in its own words. */
export class JobStopped extends Error {
  override readonly name = "JobStopped";

  constructor(readonly reason: StopReason) {
    super(`the job's process was stopped (${reason})`);
  }
}

export interface JobProcessOptions {
  /** The child's entry file: it calls `serveJobs`. A `.ts` file is run through tsx. */
  readonly module: URL;
  /** What the process is, for the log. */
  readonly name: string;
  /**
   * The child's JavaScript heap (`--max-old-space-size`). Its whole resident
   * memory may grow at most twice this over what it held when it became
   * ready (buffers and strings live outside the heap), or it is killed.
   */
  readonly maxMemoryMb: number;
  /** The largest reply a job may send, serialized; refused in the child. */
  readonly maxReplyBytes: number;
  readonly log: Logger;
}

/** How long a child has to load what it needs. */
const START_TIMEOUT_MS = 30_000;
/** How often a running job's memory is read from /proc. */
const MEMORY_WATCH_MS = 100;
/** The end of the child's stderr kept for the log when it dies. */
const STDERR_TAIL = 2048;

/**
 * One child process that runs jobs one at a time, for work whose time and
 * memory an input controls (an expression, a document). Worker threads are
 * no boundary for this: an allocation too large for a thread's heap aborts
 * the whole process (nodejs/node#47224). A child that runs out of memory or
 * time, or crashes, takes only the job it was running; the caller gets an
 * error and the pool starts another process.
 */
export class JobProcess {
  private nextId = 1;
  private stderrTail = "";
  /** Its resident memory may not pass this; measured once it is ready. */
  private memoryCeiling = Number.POSITIVE_INFINITY;
  /** Why the broker ended the process, where it did: `ended` when nobody waits for its job. */
  private ending: StopReason | "ended" | undefined;
  private readonly exitListeners = new Set<() => void>();

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: JobProcessOptions,
    stderrTail: string,
  ) {
    this.stderrTail = stderrTail;
    this.watch();
  }

  /** A new child, once it says it is ready; rejects with `unavailable` when it cannot start. */
  static async start(options: JobProcessOptions): Promise<JobProcess> {
    const path = fileURLToPath(options.module);
    const settings: JobProcessSettings = { maxReplyBytes: options.maxReplyBytes };
    const child = fork(path, [JSON.stringify(settings)], {
      execArgv: [
        `--max-old-space-size=${options.maxMemoryMb}`,
        ...(path.endsWith(".ts") ? ["--import", import.meta.resolve("tsx")] : []),
      ],
      // Nothing of the broker's environment (its secrets) reaches a job.
      env: {},
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let tail = "";
    const keepTail = (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-STDERR_TAIL);
    };
    child.stderr!.on("data", keepTail);
    try {
      await new Promise<void>((resolve, reject) => {
        const failed = (why: string) => {
          clearTimeout(timer);
          child.kill("SIGKILL");
          options.log.error(
            { process: options.name, why, stderr: tail },
            "a job process could not start",
          );
          reject(
            new BrokerError(
              "unavailable",
              `the ${options.name} could not start; see the broker log`,
            ),
          );
        };
        const timer = setTimeout(() => failed("no ready message in time"), START_TIMEOUT_MS);
        child.once("error", (err) => failed(err.message));
        child.once("exit", (code, signal) => failed(`exited (${signal ?? code})`));
        child.once("message", (message: ReadyMessage) => {
          clearTimeout(timer);
          child.removeAllListeners("exit");
          child.removeAllListeners("error");
          if (message.ready) resolve();
          else failed("its first message was not ready");
        });
      });
    } finally {
      child.stderr!.off("data", keepTail);
    }
    // Watched from here on, before anything is awaited: an end now must not go unseen.
    const job = new JobProcess(child, options, tail);
    const idle = await residentBytes(child.pid!);
    if (idle !== undefined) job.memoryCeiling = idle + 2 * options.maxMemoryMb * 1024 * 1024;
    return job;
  }

  /**
   * Read off the process itself, so an end is known however early it came;
   * a process being killed is not alive either, though its exit is yet to
   * come: a job given to it now would die with it.
   */
  get alive(): boolean {
    return (
      this.ending === undefined && this.child.exitCode === null && this.child.signalCode === null
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * Runs one job. Rejects with `JobStopped` when the process ran out of time
   * or memory or died, with the signal's reason when the caller gave up (the
   * process is killed then too: its work must not go on), and with a
   * BrokerError for a failure the job reported.
   */
  run(job: unknown, timeoutMs: number, signal: AbortSignal): Promise<unknown> {
    if (!this.alive) return Promise.reject(new JobStopped("crashed"));
    signal.throwIfAborted();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        clearInterval(memoryWatch);
        signal.removeEventListener("abort", onAbort);
        this.child.off("message", onReply);
        this.exitListeners.delete(onExit);
      };
      const onReply = (reply: JobReply) => {
        if (reply.id !== id) return;
        done();
        if (reply.ok) resolve(reply.value);
        else
          reject(new BrokerError(reply.failure.kind, reply.failure.message, reply.failure.details));
      };
      const onExit = () => {
        done();
        const ending = this.ending;
        reject(
          new JobStopped(ending === undefined || ending === "ended" ? this.deathReason() : ending),
        );
      };
      const onAbort = () => {
        done();
        this.kill();
        reject(signal.reason);
      };
      const timer = setTimeout(() => this.kill("timeout"), timeoutMs);
      const memoryWatch = setInterval(() => void this.checkMemory(), MEMORY_WATCH_MS);
      this.child.on("message", onReply);
      this.exitListeners.add(onExit);
      signal.addEventListener("abort", onAbort, { once: true });
      this.child.send({ id, job }, (err) => {
        if (err) this.kill();
      });
    });
  }

  /** Ends the process at once (SIGKILL): a job in it is lost. */
  kill(reason: StopReason | "ended" = "ended"): void {
    if (!this.alive) return;
    this.ending ??= reason;
    this.child.kill("SIGKILL");
  }

  private watch(): void {
    this.child.stderr!.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    this.child.once("exit", (code, signal) => {
      // Ended by itself, or for its memory: worth a line; a timeout or an abandoned job is not.
      if (this.ending === undefined || this.ending === "memory") {
        this.options.log.warn(
          {
            process: this.options.name,
            pid: this.child.pid,
            exit: signal ?? code,
            reason: this.ending ?? this.deathReason(),
            // V8's fatal line says more than the native stack printed after it.
            stderr:
              /^FATAL ERROR:.*$/m.exec(this.stderrTail)?.[0] ??
              this.stderrTail.trim().split("\n").slice(-4).join("\n"),
          },
          "a job process ended",
        );
      }
      for (const listener of this.exitListeners) listener();
      this.exitListeners.clear();
    });
  }

  private deathReason(): StopReason {
    return /out of memory|allocation failed|invalid (array|string|table) (length|size)/i.test(
      this.stderrTail,
    )
      ? "memory"
      : "crashed";
  }

  private async checkMemory(): Promise<void> {
    const resident = await residentBytes(this.child.pid!);
    if (resident !== undefined && resident > this.memoryCeiling) this.kill("memory");
  }
}

/** A process's resident memory, from /proc; undefined where it cannot be read. */
async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
