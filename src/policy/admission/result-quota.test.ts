import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ResultQuota } from "./result-quota.js";
import { fuzzRuns } from "../../../test/helpers/fuzz.js";

afterEach(() => vi.useRealTimers());

describe("ResultQuota", () => {
  it("takes room per token until each result expires", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const quota = new ResultQuota({
      maxResultBytes: 100,
      maxBytesPerToken: 250,
      maxKeysPerToken: 10,
    });
    const until = Date.now() + 1000;
    expect(quota.take("t", 100, until)).toBeUndefined();
    expect(quota.take("t", 100, until + 1000)).toBeUndefined();
    expect(quota.take("t", 100, until)).toContain("already keeps 2 results of 200 bytes");
    expect(quota.take("u", 100, until)).toBeUndefined();
    vi.advanceTimersByTime(1001);
    // The first expired: its room is free again.
    expect(quota.take("t", 100, until + 5000)).toBeUndefined();
    expect(quota.take("t", 101, until + 5000)).toContain(
      "over the 100 an idempotent result may have",
    );
  });
});

/** What the quota must answer, kept as plainly as it can be said: every live result counted anew. */
class PlainQuota {
  private readonly kept = new Map<string, { bytes: number; until: number }[]>();
  constructor(private readonly max: { bytes: number; keys: number; result: number }) {}
  take(token: string, bytes: number, until: number, now: number): boolean {
    if (bytes > this.max.result) return false;
    const live = (this.kept.get(token) ?? []).filter((k) => k.until > now);
    const held = live.reduce((sum, k) => sum + k.bytes, 0);
    this.kept.set(token, live);
    if (live.length >= this.max.keys || held + bytes > this.max.bytes) return false;
    live.push({ bytes, until });
    return true;
  }
}

describe("ResultQuota against every result counted anew", () => {
  it("answers alike for any order of takes, expiries and clocks set back", () => {
    const step = fc.record({
      token: fc.constantFrom("a", "b"),
      bytes: fc.integer({ min: 0, max: 120 }),
      ttl: fc.integer({ min: 1, max: 40 }),
      // Mostly forward, sometimes back (a clock set back), sometimes far (everything expires).
      advance: fc.oneof(
        { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 8 },
        { arbitrary: fc.integer({ min: -20, max: 100 }), weight: 1 },
      ),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 });
        const limits = { maxResultBytes: 100, maxBytesPerToken: 250, maxKeysPerToken: 4 };
        const quota = new ResultQuota(limits);
        const plain = new PlainQuota({ bytes: 250, keys: 4, result: 100 });
        for (const { token, bytes, ttl, advance } of steps) {
          vi.setSystemTime(Date.now() + advance);
          const until = Date.now() + ttl;
          const kept = quota.take(token, bytes, until) === undefined;
          expect(kept).toBe(plain.take(token, bytes, until, Date.now()));
        }
        vi.useRealTimers();
      }),
      { numRuns: fuzzRuns(300) },
    );
  });
});
