import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { BrokerError } from "../contract/errors.js";
import { JobPool, type JobPoolOptions } from "./job-pool.js";
import { JobStopped } from "./job-process.js";

const FIXTURE = new URL("../../test/fixtures/job-fixture.ts", import.meta.url);
const never = () => new AbortController().signal;
const pools: JobPool[] = [];

function pool(options: Partial<JobPoolOptions> = {}): JobPool {
  const made = new JobPool({
    module: FIXTURE,
    name: "test pool",
    processes: 2,
    maxMemoryMb: 64,
    maxReplyBytes: 64 * 1024,
    idleMs: 60_000,
    maxWaitingPerCaller: 4,
    maxWaiting: 8,
    log: pino({ level: "silent" }),
    ...options,
  });
  pools.push(made);
  return made;
}

const run = (p: JobPool, job: object, caller = "a", timeoutMs = 10_000, signal = never()) =>
  p.run(caller, job, { timeoutMs, signal });

/** Whether a process of that id is still there. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe("JobPool", () => {
  it("answers jobs in a child process, not this one", async () => {
    const p = pool();
    expect(await run(p, { do: "echo", value: { a: [1, "two"] } })).toEqual({ a: [1, "two"] });
    const pid = (await run(p, { do: "pid" })) as number;
    expect(pid).not.toBe(process.pid);
    expect(p.pids()).toContain(pid);
  });

  it("a job's own failure reaches the caller in its words; an unexpected one says nothing of it", async () => {
    const p = pool();
    await expect(run(p, { do: "refuse" })).rejects.toMatchObject({
      kind: "invalid_params",
      message: "that job is not allowed",
      details: { why: "test" },
    });
    const err = await run(p, { do: "throw" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokerError);
    expect(err).toMatchObject({ kind: "internal", message: "the job failed" });
    expect(JSON.stringify(err)).not.toContain("shadow");
  });

  it("a reply over the bound is refused in the child, in words", async () => {
    await expect(run(pool(), { do: "big", bytes: 100_000 })).rejects.toMatchObject({
      kind: "too_large",
      message: expect.stringContaining("over the 65536 bytes a result may have here"),
    });
  });

  it("a job over its time ends its process; the next job gets a new one", async () => {
    const p = pool({ processes: 1 });
    const before = (await run(p, { do: "pid" })) as number;
    const err = await run(p, { do: "spin" }, "a", 300).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobStopped);
    expect((err as JobStopped).reason).toBe("timeout");
    expect(alive(before)).toBe(false);
    expect(await run(p, { do: "pid" })).not.toBe(before);
  });

  it("a job over its heap ends its process, reported as memory, and nothing else", async () => {
    const p = pool({ processes: 1 });
    const err = await run(p, { do: "heap" }).catch((e: unknown) => e);
    expect((err as JobStopped).reason).toBe("memory");
    expect(await run(p, { do: "echo", value: 1 })).toBe(1);
  });

  it("memory outside the heap is bounded too: the process is killed past twice its heap", async () => {
    const p = pool({ processes: 1, maxMemoryMb: 32 });
    const err = await run(p, { do: "buffers", mb: 400 }).catch((e: unknown) => e);
    expect((err as JobStopped).reason).toBe("memory");
  });

  it("a crash is the job's error", async () => {
    const err = await run(pool(), { do: "crash" }).catch((e: unknown) => e);
    expect((err as JobStopped).reason).toBe("crashed");
  });

  it("a caller that gives up while its job runs has the process killed: its work does not go on", async () => {
    const p = pool({ processes: 1 });
    const pid = (await run(p, { do: "pid" })) as number;
    const controller = new AbortController();
    const mark = join(mkdtempSync(join(tmpdir(), "job-pool-")), "began");
    const running = run(p, { do: "spin", mark }, "a", 60_000, controller.signal);
    await expect.poll(() => existsSync(mark)).toBe(true);
    controller.abort(new BrokerError("timeout", "gave up"));
    await expect(running).rejects.toMatchObject({ message: "gave up" });
    await expect.poll(() => alive(pid)).toBe(false);
  });

  it("the job after an abandoned one gets a new process, not the one being killed", async () => {
    const p = pool({ processes: 1 });
    const controller = new AbortController();
    const mark = join(mkdtempSync(join(tmpdir(), "job-pool-")), "began");
    const running = run(p, { do: "spin", mark }, "a", 60_000, controller.signal);
    const next = run(p, { do: "echo", value: "fresh" }, "b");
    await expect.poll(() => existsSync(mark)).toBe(true);
    controller.abort(new BrokerError("timeout", "gave up"));
    await expect(running).rejects.toMatchObject({ message: "gave up" });
    expect(await next).toBe("fresh");
  });

  it("a caller that gives up while its job waits leaves the queue at once", async () => {
    const p = pool({ processes: 1 });
    const first = run(p, { do: "sleep", ms: 500 }, "a");
    const controller = new AbortController();
    const waiting = run(p, { do: "spin" }, "b", 60_000, controller.signal);
    controller.abort(new Error("left"));
    await expect(waiting).rejects.toThrow("left");
    expect(await first).toBe("slept");
    // The spin never ran: the process is the same and answers at once.
    expect(await run(p, { do: "echo", value: 2 }, "c", 1000)).toBe(2);
  });

  it("while others wait, one caller holds all processes but one", async () => {
    const p = pool({ processes: 2 });
    await run(p, { do: "echo", value: 0 });
    const slow = Array.from({ length: 3 }, () => run(p, { do: "sleep", ms: 1500 }, "hog"));
    const started = performance.now();
    expect(await run(p, { do: "echo", value: "mine" }, "other")).toBe("mine");
    expect(performance.now() - started).toBeLessThan(1200);
    await Promise.all(slow);
  });

  it("refuses a caller's jobs past its bound, and everyone's past the total", async () => {
    const p = pool({ processes: 1, maxWaitingPerCaller: 2, maxWaiting: 3 });
    const held = run(p, { do: "sleep", ms: 300 }, "a");
    await expect.poll(() => p.pids().length).toBe(1);
    const queued = [run(p, { do: "echo", value: 1 }, "a"), run(p, { do: "echo", value: 2 }, "a")];
    await expect(run(p, { do: "echo", value: 3 }, "a")).rejects.toMatchObject({
      kind: "rate_limited",
    });
    queued.push(run(p, { do: "echo", value: 4 }, "b"));
    await expect(run(p, { do: "echo", value: 5 }, "c")).rejects.toMatchObject({
      kind: "unavailable",
    });
    expect(await Promise.all([held, ...queued])).toEqual(["slept", 1, 2, 4]);
  });

  it("close refuses what waits and ends the processes", async () => {
    const p = pool({ processes: 1 });
    const pid = (await run(p, { do: "pid" })) as number;
    const running = run(p, { do: "sleep", ms: 5000 });
    const waiting = run(p, { do: "echo", value: 1 }, "b");
    await p.close();
    await expect(waiting).rejects.toMatchObject({ kind: "unavailable" });
    await expect(running).rejects.toBeInstanceOf(JobStopped);
    await expect.poll(() => alive(pid)).toBe(false);
  });
});
