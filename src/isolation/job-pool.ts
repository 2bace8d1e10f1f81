import { BrokerError } from "../contract/errors.js";
import { FairQueue } from "./fair-queue.js";
import { JobProcess, type JobProcessOptions } from "./job-process.js";

export interface JobPoolOptions extends JobProcessOptions {
  /** At most this many processes run jobs at once; started when needed. */
  readonly processes: number;
  /** A process beyond the first ends after this long without a job. */
  readonly idleMs: number;
  /** Jobs one caller may have waiting; more are refused (`rate_limited`). */
  readonly maxWaitingPerCaller: number;
  /** Jobs all callers may have waiting; more are refused (`unavailable`). */
  readonly maxWaiting: number;
}

export interface JobOptions {
  /** Longest the job may run once a process has it (waiting does not count). */
  readonly timeoutMs: number;
  /** The caller gave up: a waiting job leaves the queue, a running one's process is killed. */
  readonly signal: AbortSignal;
}

interface Waiter {
  readonly job: unknown;
  readonly options: JobOptions;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
  readonly onAbort: () => void;
}

interface Slot {
  /** Its process, started or starting. */
  process: Promise<JobProcess> | undefined;
  /** The process once started, to see at once whether it is alive. */
  started: JobProcess | undefined;
  busy: boolean;
  idle: NodeJS.Timeout | undefined;
}

/**
 * Child processes that run jobs (JobProcess) for many callers. Callers take
 * turns (FairQueue), and while others wait none holds more than all
 * processes but one: a caller sending slow jobs one after the other has one
 * process, and everyone else the rest. A job whose caller gives up is taken
 * out of the queue, or has its process killed if it was running, so no
 * abandoned work holds a place. While every process is busy, one more is
 * made ready (up to `processes`), so the next caller does not wait for a
 * start. Results and failures are the job's (JobProcess.run).
 *
 * @example
 * const pool = new JobPool({ module: new URL("./math-process.js", import.meta.url), name: "calculator",
 *   processes: 2, maxMemoryMb: 64, maxReplyBytes: 1 << 20, idleMs: 60_000,
 *   maxWaitingPerCaller: 16, maxWaiting: 256, log });
 * await pool.run(principal.id, { expression: "2 + 2" }, { timeoutMs: 2000, signal });
 */
export class JobPool {
  private readonly slots: Slot[];
  private readonly queue: FairQueue<Waiter>;
  private readonly running = new Map<string, number>();
  private readonly perCaller: number;
  private closed = false;

  constructor(private readonly options: JobPoolOptions) {
    this.slots = Array.from({ length: Math.max(1, options.processes) }, () => ({
      process: undefined,
      started: undefined,
      busy: false,
      idle: undefined,
    }));
    this.queue = new FairQueue(options.maxWaitingPerCaller, options.maxWaiting);
    this.perCaller = Math.max(1, this.slots.length - 1);
  }

  run(caller: string, job: unknown, options: JobOptions): Promise<unknown> {
    const { signal } = options;
    signal.throwIfAborted();
    if (this.closed) return Promise.reject(this.closing());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        job,
        options,
        resolve,
        reject,
        onAbort: () => {
          if (this.queue.remove(caller, waiter)) reject(signal.reason);
        },
      };
      if (!this.queue.push(caller, waiter)) {
        reject(this.refusal(caller));
        return;
      }
      signal.addEventListener("abort", waiter.onAbort, { once: true });
      this.pump();
    });
  }

  /** Refuses what waits and ends every process. */
  close(): Promise<void> {
    this.closed = true;
    for (let next = this.queue.take(); next; next = this.queue.take()) {
      next.item.options.signal.removeEventListener("abort", next.item.onAbort);
      next.item.reject(this.closing());
    }
    for (const slot of this.slots) {
      clearTimeout(slot.idle);
      void slot.process?.then(
        (job) => job.kill(),
        () => undefined,
      );
    }
    return Promise.resolve();
  }

  /** The processes alive now, for tests and the log. */
  pids(): number[] {
    return this.slots.flatMap((s) => (s.started?.alive && s.started.pid ? [s.started.pid] : []));
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const next = this.queue.take((caller) => (this.running.get(caller) ?? 0) < this.perCaller);
      if (next === undefined) return;
      void this.serve(slot, next.caller, next.item);
    }
  }

  private async serve(slot: Slot, caller: string, waiter: Waiter): Promise<void> {
    slot.busy = true;
    clearTimeout(slot.idle);
    this.running.set(caller, (this.running.get(caller) ?? 0) + 1);
    const { signal, timeoutMs } = waiter.options;
    signal.removeEventListener("abort", waiter.onAbort);
    try {
      let job = await slot.process?.catch(() => undefined);
      if (!job?.alive) job = await this.start(slot);
      this.prepareSpare();
      waiter.resolve(await job.run(waiter.job, timeoutMs, signal));
    } catch (err) {
      waiter.reject(err);
    } finally {
      const left = (this.running.get(caller) ?? 1) - 1;
      if (left === 0) this.running.delete(caller);
      else this.running.set(caller, left);
      slot.busy = false;
      this.endWhenIdle(slot);
      if (!this.closed) this.pump();
    }
  }

  private start(slot: Slot): Promise<JobProcess> {
    const starting = JobProcess.start(this.options);
    slot.process = starting;
    slot.started = undefined;
    starting.then(
      (job) => {
        if (slot.process !== starting) return;
        slot.started = job;
        if (this.closed) job.kill();
      },
      () => {
        if (slot.process === starting) slot.process = undefined;
      },
    );
    return starting;
  }

  /** With every process at work, one more is started for whoever comes next. */
  private prepareSpare(): void {
    if (this.closed || this.slots.some((s) => !s.busy && usable(s))) return;
    const free = this.slots.find((s) => !s.busy);
    if (free === undefined) return;
    this.start(free).catch(() => undefined);
    this.endWhenIdle(free);
  }

  /** Processes beyond the first end when unused for a while; the first stays, ready. */
  private endWhenIdle(slot: Slot): void {
    if (slot === this.slots[0]) return;
    clearTimeout(slot.idle);
    slot.idle = setTimeout(() => {
      if (!slot.busy)
        void slot.process?.then(
          (job) => job.kill(),
          () => undefined,
        );
    }, this.options.idleMs);
    slot.idle.unref();
  }

  private refusal(caller: string): BrokerError {
    const mine = this.queue.waitingFor(caller);
    return mine >= this.options.maxWaitingPerCaller
      ? new BrokerError(
          "rate_limited",
          `the ${this.options.name} already has ${mine} jobs of this caller waiting (at most ${this.options.maxWaitingPerCaller}); wait for them to finish`,
          { waiting: mine },
        )
      : new BrokerError(
          "unavailable",
          `the ${this.options.name} is busy: ${this.queue.size} jobs are waiting; try again shortly`,
          { waiting: this.queue.size },
        );
  }

  private closing(): BrokerError {
    return new BrokerError("unavailable", `the ${this.options.name} is shutting down`);
  }
}

/** A process is there, or on its way: started and alive, or still starting. */
function usable(slot: Slot): boolean {
  return slot.process !== undefined && (slot.started === undefined || slot.started.alive);
}
