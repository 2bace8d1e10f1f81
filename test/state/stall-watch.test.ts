import fc from "fast-check";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RedisStore } from "../../src/state/redis.js";
import { StallWatch } from "../../src/state/stall-watch.js";
import { ownRedis } from "../helpers/services.js";

const LIMIT_MS = 1000;

type Step = { kind: "send" } | { kind: "answer" } | { kind: "wait"; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: "send" }),
  fc.constant<Step>({ kind: "answer" }),
  fc.integer({ min: 1, max: 1600 }).map((ms): Step => ({ kind: "wait", ms })),
);

describe("StallWatch", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("calls a stall only while answers are owed and none came for the limit, and always within a quarter more", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const stalls: number[] = [];
        const watch = new StallWatch(LIMIT_MS, () => stalls.push(performance.now()));
        // The model: what is owed, and since when nothing has been answered.
        let owed = 0;
        let quietSince = performance.now();
        try {
          for (const s of steps) {
            if (s.kind === "send") {
              if (owed++ === 0) quietSince = performance.now();
              watch.sent();
            } else if (s.kind === "answer" && owed > 0) {
              owed--;
              quietSince = performance.now();
              watch.answered();
            } else if (s.kind === "wait") {
              // A millisecond at a time, so that every check sees the model as it stands.
              for (let ms = 0; ms < s.ms; ms++) {
                const before = stalls.length;
                vi.advanceTimersByTime(1);
                const now = performance.now();
                if (stalls.length > before) {
                  expect(owed).toBeGreaterThan(0);
                  expect(now - quietSince).toBeGreaterThanOrEqual(LIMIT_MS);
                  quietSince = now;
                }
                if (owed > 0) expect(now - quietSince).toBeLessThanOrEqual(LIMIT_MS * 1.25);
              }
            }
          }
        } finally {
          watch.stop();
        }
      }),
      { numRuns: 200 },
    );
  });

  it("stops checking once stopped", () => {
    const onStall = vi.fn();
    const watch = new StallWatch(LIMIT_MS, onStall);
    watch.sent();
    watch.stop();
    vi.advanceTimersByTime(LIMIT_MS * 5);
    expect(onStall).not.toHaveBeenCalled();
  });
});

describe("a Redis store whose Redis stops answering", () => {
  it("fails every command it is owed at once after two seconds, then serves again when Redis does", async () => {
    const redis = await ownRedis();
    if (!redis) return;
    const lines: string[] = [];
    const log = pino({ level: "warn" }, { write: (line: string) => lines.push(line) });
    const store = new RedisStore(`redis://127.0.0.1:${redis.port}`, "stall:", log);
    const admin = new Redis(redis.port, "127.0.0.1");
    try {
      await store.ready();
      await store.set("k", "before", 60_000);
      await admin.call("CLIENT", "PAUSE", "4000", "ALL");
      const started = Date.now();
      const owed = await Promise.allSettled([
        store.get("k"),
        store.set("k", "during", 60_000),
        store.admit([{ key: "b", perMinute: 60, burst: 10 }]),
      ]);
      const waited = Date.now() - started;
      expect(owed.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
      expect(waited).toBeGreaterThanOrEqual(1900);
      expect(waited).toBeLessThan(3500);
      expect(lines.map((line) => JSON.parse(line) as { msg: string })).toContainEqual(
        expect.objectContaining({
          msg: "state store answered nothing; failing what it owes and connecting again",
        }),
      );
      // Once Redis answers again, so does the store, on its new connection.
      let value: string | undefined;
      for (let i = 0; i < 40 && value === undefined; i++) {
        value = await store.get("k").catch(() => undefined);
        if (value === undefined) await new Promise((r) => setTimeout(r, 250));
      }
      expect(value).toBeDefined();
    } finally {
      admin.disconnect();
      await store.close();
      redis.process.kill("SIGKILL");
    }
  }, 20_000);
});
