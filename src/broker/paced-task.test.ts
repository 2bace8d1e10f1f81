import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PacedTask } from "./paced-task.js";

/** A task that takes `ms` of (fake) time and counts its runs. */
function costly(ms: number) {
  const runs: number[] = [];
  const task = new PacedTask(async () => {
    runs.push(Date.now());
    vi.advanceTimersByTime(ms);
  }, 4);
  return { runs, task };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
});
afterEach(() => vi.useRealTimers());

describe("PacedTask", () => {
  it("runs a lone request at once", async () => {
    const { runs, task } = costly(10);
    task.request();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toHaveLength(1);
  });

  it("serves every request made during a run with one more run, four times the cost later", async () => {
    const { runs, task } = costly(100);
    const t0 = Date.now();
    task.request();
    await vi.advanceTimersByTimeAsync(0);
    for (let i = 0; i < 50; i++) task.request();
    await vi.advanceTimersByTimeAsync(399);
    expect(runs).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs.map((t) => t - t0)).toEqual([0, 500]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toHaveLength(2);
  });

  it("never takes more than a fifth of the time, however often it is asked", async () => {
    const { runs, task } = costly(50);
    const t0 = Date.now();
    for (let t = 0; t < 10_000; t += 10) {
      task.request();
      await vi.advanceTimersByTimeAsync(10);
    }
    const busy = runs.length * 50;
    expect(busy / (Date.now() - t0)).toBeLessThanOrEqual(0.21);
    expect(runs.length).toBeGreaterThan(30);
  });

  it("settles once every request so far has had its run; stop ends what waits", async () => {
    const { runs, task } = costly(100);
    task.request();
    await vi.advanceTimersByTimeAsync(0);
    task.request();
    let settled = false;
    void task.settled().then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(300);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect([runs.length, settled]).toEqual([2, true]);
    task.request();
    task.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toHaveLength(2);
    await task.settled();
  });

  it("lets a caller that does the work itself drop the run waiting for its turn", async () => {
    const { runs, task } = costly(100);
    task.request();
    await vi.advanceTimersByTimeAsync(0);
    // The run above is over; the next waits its turn, 400 ms later.
    task.request();
    let skipped = false;
    void task.skipWaiting().then(() => (skipped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect([runs.length, skipped]).toEqual([1, true]);
    await task.settled();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toHaveLength(1);
  });
});
