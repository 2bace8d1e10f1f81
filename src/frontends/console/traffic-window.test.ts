import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TrafficWindow } from "./traffic-window.js";
import { fuzzRuns } from "../../../test/helpers/fuzz.js";

describe("TrafficWindow", () => {
  it("gives calls per second, failures and percentiles per source and step", () => {
    let now = 1_000_000;
    const window = new TrafficWindow(60, () => now);
    for (let i = 1; i <= 100; i++) window.add("/fx", i, i % 10 !== 0);
    window.add("/ops", 7, true);
    now += 3000;
    const series = window.series(5);
    expect(Object.keys(series)).toEqual(["/fx", "/ops"]);
    const last = series["/fx"]!.at(-1)!;
    expect(last).toMatchObject({ calls_per_s: 20, failed: 10, p50_ms: 50, p99_ms: 99 });
    expect(series["/fx"]).toHaveLength(12);
    expect(series["/fx"]!.slice(0, -1).every((p) => p.calls_per_s === 0 && p.p50_ms === null)).toBe(
      true,
    );
    expect(series["/ops"]!.at(-1)).toMatchObject({ calls_per_s: 0.2, p50_ms: 7, p99_ms: 7 });
  });

  it("forgets what is older than its span", () => {
    let now = 5_000_000;
    const window = new TrafficWindow(60, () => now);
    window.add("/fx", 1, true);
    now += 61_000;
    expect(window.series(5)).toEqual({});
  });

  it("keeps a bounded sample of a busy second, and counts every call (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 2000 }),
        (durations) => {
          const window = new TrafficWindow(10, () => 42_000);
          for (const d of durations) window.add("/s", d, true);
          const point = window.series(10)["/s"]!.at(-1)!;
          const sorted = [...durations].sort((a, b) => a - b);
          expect(point.calls_per_s * 10).toBeCloseTo(durations.length);
          expect(point.p50_ms).toBeGreaterThanOrEqual(sorted[0]!);
          expect(point.p99_ms).toBeLessThanOrEqual(sorted.at(-1)!);
          expect(point.p50_ms!).toBeLessThanOrEqual(point.p99_ms!);
        },
      ),
      { seed: 20, numRuns: fuzzRuns(100) },
    );
  });
});
