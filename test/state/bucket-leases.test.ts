import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { BucketLeases, leaseSize } from "../../src/state/bucket-leases.js";
import { RedisStore } from "../../src/state/redis.js";
import type { Bucket } from "../../src/state/store.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";
import { fuzzRuns } from "../helpers/fuzz.js";

const hasRedis = await redisAvailable();
const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
const opened: RedisStore[] = [];
/** An instance's store: its own connection and leases, on the prefix every instance of one test shares. */
async function instance(prefix: string): Promise<RedisStore> {
  const store = new RedisStore(REDIS_URL, prefix);
  opened.push(store);
  await store.ready();
  return store;
}
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

/** An instance's store on a prefix of its own, and a plain client that reads what it wrote there. */
async function withStoreAndRedis(
  name: string,
  body: (store: RedisStore, raw: Redis) => Promise<void>,
): Promise<void> {
  const prefix = `mcp-broker-test:${run}:${name}:`;
  const store = await instance(prefix);
  const raw = new Redis(REDIS_URL, { keyPrefix: prefix });
  try {
    await body(store, raw);
  } finally {
    raw.disconnect();
  }
}

/** The whole tokens a bucket holds in Redis. */
async function tokensIn(raw: Redis, key: string): Promise<number> {
  return Math.floor((JSON.parse((await raw.get(key))!) as { tokens: number }).tokens);
}

describe("bucket leases", () => {
  it("lease a thousandth of the burst, and count a burst under 2,000 call by call", () => {
    const bucket = (burst: number): Bucket => ({ key: "b", perMinute: 60, burst });
    expect(leaseSize(bucket(1))).toBe(1);
    expect(leaseSize(bucket(1999))).toBe(1);
    expect(leaseSize(bucket(2000))).toBe(2);
    expect(leaseSize(bucket(1_000_000))).toBe(1000);
  });

  it("ask for one lease at a time, keep it until it is spent, and drop the least recently used", () => {
    const leases = new BucketLeases(2);
    const bucket = (key: string) => ({ key, perMinute: 60, burst: 10_000 });
    const [a, b, c] = [bucket("a"), bucket("b"), bucket("c")];
    expect(leases.take([a])).toEqual([false]);
    expect(leases.ask(a)).toBe(10);
    // While that lease is on its way, another call asks for its own token only.
    expect(leases.ask(a)).toBe(1);
    leases.settle(a, 1, 1);
    leases.settle(a, 10, 10);
    for (let i = 0; i < 9; i++) expect(leases.take([a])).toEqual([true]);
    expect(leases.take([a])).toEqual([false]);
    // Three buckets leased where two are kept: the one used longest ago goes.
    for (const x of [a, b, c]) leases.settle(x, leases.ask(x), 10);
    expect(leases.take([a, b, c])).toEqual([false, true, true]);
    // A rule made smaller (a reload): what is held counts for a lease of the new size at most.
    const smaller = { ...b, burst: 1000 };
    expect(leases.take([smaller])).toEqual([true]);
    expect(leases.take([smaller])).toEqual([false]);
  });
});

describe.runIf(hasRedis)("a Redis store's leases", () => {
  it("take a lease's worth from the shared bucket, then spend it without asking", async () => {
    await withStoreAndRedis("lease", async (store, raw) => {
      const bucket = { key: "b", perMinute: 0.001, burst: 5000 };
      expect(await store.admit([bucket])).toEqual({ admitted: true });
      expect(await tokensIn(raw, "b")).toBe(4995);
      for (let i = 0; i < 4; i++) expect(await store.admit([bucket])).toEqual({ admitted: true });
      expect(await tokensIn(raw, "b")).toBe(4995);
      expect(await store.admit([bucket])).toEqual({ admitted: true });
      expect(await tokensIn(raw, "b")).toBe(4990);
    });
  });

  it("keep a lease through a quiet spell: a seldom-called bucket is drained by calls, not leases", async () => {
    await withStoreAndRedis("quiet", async (store, raw) => {
      const bucket = { key: "b", perMinute: 0.001, burst: 3000 };
      for (let call = 0; call < 3; call++) {
        expect(await store.admit([bucket])).toEqual({ admitted: true });
        await new Promise((r) => setTimeout(r, 600));
      }
      // Three calls over almost two seconds took one lease of three from Redis, no more.
      expect(await tokensIn(raw, "b")).toBe(2997);
    });
  });

  it("spend a lease's token only when every bucket admits, and give it back otherwise", async () => {
    const store = await instance(`mcp-broker-test:${run}:both:`);
    const wide = { key: "wide", perMinute: 0.001, burst: 3000 };
    const narrow = { key: "narrow", perMinute: 0.001, burst: 1 };
    expect(await store.admit([wide])).toEqual({ admitted: true }); // a lease of 3: 2 held
    expect(await store.admit([wide, narrow])).toEqual({ admitted: true }); // 1 held
    expect(await store.admit([wide, narrow])).toMatchObject({ admitted: false, bucket: 1 });
    // The refusal gave the held token back: it admits one more call, from the lease.
    expect(await store.admit([wide])).toEqual({ admitted: true });
  });

  it("claim a key with every bucket leased, and give the token back when the key is held", async () => {
    await withStoreAndRedis("claim", async (store, raw) => {
      const bucket = { key: "b", perMinute: 0.001, burst: 3000 };
      const claim = { key: "c", value: "mine", leaseMs: 60_000 };
      expect(await store.admit([bucket])).toEqual({ admitted: true }); // a lease of 3: 2 held
      expect(await store.admit([bucket], claim)).toEqual({ admitted: true }); // 1 held
      expect(await raw.get("c")).toBe("mine");
      expect(await raw.pttl("c")).toBeGreaterThan(59_000);
      expect(await store.admit([bucket], { ...claim, value: "other" })).toEqual({
        admitted: false,
        held: "mine",
      });
      // The held claim gave its token back: one left in the lease, and none asked of Redis.
      expect(await store.admit([bucket])).toEqual({ admitted: true });
      expect(await tokensIn(raw, "b")).toBe(2997);
      // A claim that lapsed is taken anew.
      await raw.del("c");
      expect(await store.admit([], { ...claim, value: "next" })).toEqual({ admitted: true });
      expect(await raw.get("c")).toBe("next");
    });
  });

  it("three instances admit within 1% of the burst, and never above it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6000 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 200, maxLength: 400 }),
        async (burst, spread) => {
          const prefix = `mcp-broker-test:${run}:trio:${Math.random().toString(36).slice(2)}:`;
          const trio = await Promise.all([0, 1, 2].map(() => instance(prefix)));
          // Practically no refill: whatever is admitted came out of the burst.
          const bucket = { key: "shared", perMinute: 0.001, burst };
          const calls = burst + 300;
          // Waves of concurrent calls, each sent to an instance chosen by `spread`.
          let admitted = 0;
          for (let sent = 0; sent < calls; sent += spread.length) {
            const wave = spread.slice(0, Math.min(spread.length, calls - sent));
            const answers = await Promise.all(wave.map((i) => trio[i]!.admit([bucket])));
            admitted += answers.filter((a) => a.admitted).length;
          }
          await Promise.all(trio.map((s) => s.close()));
          expect(admitted).toBeLessThanOrEqual(burst);
          // What the instances still hold unspent: at most a lease each.
          expect(admitted).toBeGreaterThanOrEqual(burst - 3 * (leaseSize(bucket) - 1));
          expect(burst - admitted).toBeLessThanOrEqual(burst * 0.01);
        },
      ),
      { numRuns: fuzzRuns(15) },
    );
  }, 60_000);
});
