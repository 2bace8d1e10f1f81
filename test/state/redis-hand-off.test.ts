import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { RedisStore } from "../../src/state/redis.js";
import { ownRedis, REDIS_URL, redisAvailable } from "../helpers/services.js";

const hasRedis = await redisAvailable();
const prefix = `mcp-broker-test:hand-off:${Date.now().toString(36)}:`;
const FIXTURE = fileURLToPath(new URL("../fixtures/hand-off-then-die.ts", import.meta.url));

/** Runs the fixture; resolves with the signal that ended it. */
function handOffThenDie(stem: string, count: number): Promise<NodeJS.Signals | null> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", FIXTURE, REDIS_URL, prefix, stem, String(count)],
    { stdio: "ignore" },
  );
  return new Promise((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new Promise<false>((resolve) => setTimeout(() => resolve(false), ms));
  return Promise.race([promise.then(() => true), timer]);
}

describe("a write handed off to Redis", () => {
  it.runIf(hasRedis)(
    "is stored even when its process is killed the moment after, answers unread",
    async () => {
      // Killed with Redis's answers still unread, a process's socket is reset, not closed:
      // what it wrote before must still be in Redis.
      const stems = ["a", "b", "c"];
      expect(await Promise.all(stems.map((s) => handOffThenDie(s, 200)))).toEqual(
        stems.map(() => "SIGKILL"),
      );
      const redis = new Redis(REDIS_URL, { keyPrefix: prefix });
      const values = await redis.mget(stems.flatMap((s) => [`${s}:0`, `${s}:199`]));
      redis.disconnect();
      expect(values).toEqual(stems.flatMap(() => ["value 0", "value 199"]));
    },
  );

  it("is done before Redis answers, where a plain set waits for the answer", async () => {
    const own = await ownRedis();
    if (!own) return;
    const store = new RedisStore(`redis://127.0.0.1:${own.port}`);
    const admin = new Redis(own.port, "127.0.0.1");
    try {
      await store.ready();
      // Redis holds every write command until the pause ends.
      await admin.call("CLIENT", "PAUSE", "600", "WRITE");
      expect(await settlesWithin(store.handOff("k", "handed", 60_000), 200)).toBe(true);
      const set = store.set("k2", "set", 60_000);
      expect(await settlesWithin(set, 200)).toBe(false);
      await set;
      expect(await store.get("k")).toBe("handed");
    } finally {
      admin.disconnect();
      await store.close();
      own.process.kill("SIGKILL");
    }
  });

  it.runIf(hasRedis)(
    "waits for Redis's answer while the connection holds the write back",
    async () => {
      const store = new RedisStore(REDIS_URL, prefix);
      await store.ready();
      const { stream } = (store as unknown as { redis: Redis }).redis;
      stream.cork();
      const handed = store.handOff("corked", "v", 60_000);
      expect(await settlesWithin(handed, 100)).toBe(false);
      stream.uncork();
      await handed;
      expect(await store.get("corked")).toBe("v");
      await store.close();
    },
  );
});
