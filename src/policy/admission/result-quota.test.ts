import { afterEach, describe, expect, it, vi } from "vitest";
import { ResultQuota } from "./result-quota.js";

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
