import { Redis } from "ioredis";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { RedisStore } from "../../src/state/redis.js";
import { ownRedis } from "../helpers/services.js";

describe("a Redis store whose Redis stops answering", () => {
  it("fails every command it is owed within seconds, says why in the log, and serves again when Redis does", async () => {
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
        store.admit([], { key: "claim", value: "running", leaseMs: 10_000 }),
      ]);
      const waited = Date.now() - started;
      expect(owed.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected", "rejected"]);
      expect(waited).toBeGreaterThanOrEqual(1900);
      expect(waited).toBeLessThan(3500);
      const logged = lines.map((line) => JSON.parse(line) as { msg: string; store?: string });
      expect(logged).toContainEqual(
        expect.objectContaining({ msg: "state store command failed", store: "redis" }),
      );
      // Once Redis answers again, so does the store.
      let value: string | undefined;
      for (let i = 0; i < 40 && value === undefined; i++) {
        value = await store.get("k").catch(() => undefined);
        if (value === undefined) await new Promise((r) => setTimeout(r, 250));
      }
      expect(["before", "during"]).toContain(value);
    } finally {
      admin.disconnect();
      await store.close();
      redis.process.kill("SIGKILL");
    }
  }, 20_000);
});
