import { describe, expect, it } from "vitest";
import { TimeSlices } from "./time-slices.js";

/** Busy work for about `ms` milliseconds. */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("TimeSlices", () => {
  it("lets the event loop run between slices of a long loop", async () => {
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const slices = new TimeSlices(5);
    for (let i = 0; i < 40; i++) {
      await slices.next();
      spin(1);
    }
    clearInterval(ticking);
    // 40 ms of work in slices of 5 ms: the timer fired between them.
    expect(turns).toBeGreaterThanOrEqual(4);
  });

  it("does not yield within a slice", async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    const slices = new TimeSlices(10_000);
    for (let i = 0; i < 100; i++) await slices.next();
    expect(turned).toBe(false);
  });
});
