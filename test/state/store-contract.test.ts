import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/state/memory.js";
import { openStore } from "../../src/state/open-store.js";
import { RedisStore } from "../../src/state/redis.js";
import { SqliteStore } from "../../src/state/sqlite.js";
import type { StateStore } from "../../src/state/store.js";
import { ownRedis, REDIS_URL, redisAvailable } from "../helpers/services.js";
import { fuzzRuns } from "../helpers/fuzz.js";

const hasRedis = await redisAvailable();
/** A Redis of the suite's own on a Unix socket, as a Redis on the broker's host is best reached. */
const socketRedis = await ownRedis({ socket: true });
afterAll(() => {
  socketRedis?.process.kill("SIGKILL");
});
const run = Date.now().toString(36);
/** A store at `spec`, under a prefix of its own: every test starts from empty buckets and keys. */
const redisAt = (spec: string) => async (): Promise<StateStore> => {
  const store = new RedisStore(
    spec,
    `mcp-broker-test:${run}:${Math.random().toString(36).slice(2)}:`,
  );
  await store.ready();
  return store;
};
const stores: [string, () => Promise<StateStore>, boolean][] = [
  ["memory", async () => new MemoryStore(), true],
  [
    "sqlite",
    async () => new SqliteStore(join(mkdtempSync(join(tmpdir(), "mcp-broker-state-")), "state.db")),
    true,
  ],
  ["redis", redisAt(REDIS_URL), hasRedis],
  [
    "redis (by its Unix socket)",
    redisAt(`unix://${socketRedis?.socket}?db=1`),
    socketRedis !== undefined,
  ],
];

const binary = fc.string({ unit: "binary" });

/** Runs `check` on a fresh store from `make`, and closes the store after, passed or not. */
async function onStore(
  make: () => Promise<StateStore>,
  check: (store: StateStore) => Promise<void>,
): Promise<void> {
  const store = await make();
  try {
    await check(store);
  } finally {
    await store.close();
  }
}

describe.each(stores)("the %s store", (_name, make, available) => {
  it.runIf(available)(
    "admits by all buckets or none, and claims only what nobody holds",
    async () => {
      const store = await make();
      const wide = { key: "b:wide", perMinute: 60, burst: 3 };
      const narrow = { key: "b:narrow", perMinute: 60, burst: 1 };
      expect(await store.admit([wide, narrow])).toEqual({ admitted: true });
      expect(await store.admit([wide, narrow])).toEqual({ admitted: false, bucket: 1, waitS: 1 });
      // The refusal took nothing from the wide bucket: two tokens are left.
      expect(await store.admit([wide])).toEqual({ admitted: true });
      expect(await store.admit([wide])).toEqual({ admitted: true });
      expect(await store.admit([wide])).toMatchObject({ admitted: false, bucket: 0 });

      const claim = { key: "c:1", value: "running", leaseMs: 60_000 };
      expect(await store.admit([], claim)).toEqual({ admitted: true });
      expect(await store.admit([], { ...claim, value: "other" })).toEqual({
        admitted: false,
        held: "running",
      });
      // A held claim takes no token either.
      const fresh = { key: "b:fresh", perMinute: 60, burst: 1 };
      expect(await store.admit([fresh], claim)).toEqual({ admitted: false, held: "running" });
      expect(await store.admit([fresh])).toEqual({ admitted: true });
      await store.close();
    },
  );

  it.runIf(available)("gets what was set, and nothing after its TTL", async () => {
    const store = await make();
    expect(await store.get("a")).toBeUndefined();
    await store.set("a", "1", 60_000);
    await store.set("short", "x", 50);
    expect(await store.get("a")).toBe("1");
    await new Promise((r) => setTimeout(r, 120));
    expect(await store.get("short")).toBeUndefined();
    await store.delete("a");
    expect(await store.get("a")).toBeUndefined();
    await store.close();
  });

  it.runIf(available)("compare-and-set writes only over the expected value", async () => {
    const store = await make();
    expect(await store.compareAndSet("k", undefined, "v1", 60_000)).toBe(true);
    expect(await store.compareAndSet("k", undefined, "v2", 60_000)).toBe(false);
    expect(await store.compareAndSet("k", "nope", "v2", 60_000)).toBe(false);
    expect(await store.compareAndSet("k", "v1", "v2", 60_000)).toBe(true);
    expect(await store.get("k")).toBe("v2");
    await store.set("gone", "x", 30);
    await new Promise((r) => setTimeout(r, 80));
    expect(await store.compareAndSet("gone", undefined, "y", 60_000)).toBe(true);
    await store.close();
  });

  it.runIf(available)(
    "deletes with an expected value only while the key holds exactly that value",
    () =>
      onStore(make, (store) =>
        fc.assert(
          fc.asyncProperty(binary, binary, fc.option(binary), async (key, held, other) => {
            // Half the time the value it holds, else another (or by chance the same).
            const expected = other ?? held;
            await store.set(`d:${key}`, held, 60_000);
            await store.delete(`d:${key}`, expected);
            expect(await store.get(`d:${key}`)).toBe(held === expected ? undefined : held);
            // An absent key stays absent, whatever is expected of it.
            await store.delete(`d:${key}`, held);
            expect(await store.get(`d:${key}`)).toBeUndefined();
          }),
          { numRuns: fuzzRuns(200) },
        ),
      ),
  );

  it.runIf(available)("gives back any value handed off under any key, for the next reader", () =>
    onStore(make, (store) =>
      fc.assert(
        fc.asyncProperty(binary, binary, async (key, value) => {
          await store.handOff(`h:${key}`, value, 60_000);
          expect(await store.get(`h:${key}`)).toBe(value);
        }),
        { numRuns: fuzzRuns(200) },
      ),
    ),
  );

  it.runIf(available)("counts exactly under 50 concurrent compare-and-set loops", async () => {
    const store = await make();
    const increment = async () => {
      for (;;) {
        const current = await store.get("n");
        if (await store.compareAndSet("n", current, String(Number(current ?? 0) + 1), 60_000))
          return;
      }
    };
    await Promise.all(Array.from({ length: 50 }, increment));
    expect(await store.get("n")).toBe("50");
    await store.close();
  });
  it.runIf(available)(
    "finds the values under a prefix as written, glob characters and all, and no others",
    () =>
      onStore(make, async (store) => {
        await store.set("task:a*[b]?", "1", 60_000);
        await store.set("task:a*[b]?-2", "2", 60_000);
        await store.set("task:ab", "other", 60_000);
        await store.set("task:a*[b]?-gone", "expired", 1);
        await store.set("tasks", "outside", 60_000);
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect((await store.valuesUnder("task:a*[b]?", 10)).sort()).toEqual(["1", "2"]);
        expect(await store.valuesUnder("task:a*[b]?", 1)).toHaveLength(1);
        expect(await store.valuesUnder("nothing:", 10)).toEqual([]);
      }),
  );
});

describe("stores", () => {
  it("sqlite keeps its state across a reopen", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mcp-broker-state-")), "state.db");
    const first = await openStore(`sqlite:${file}`);
    await first.set("kept", "yes", 60_000);
    await first.close();
    const second = await openStore(`sqlite:${file}`);
    expect(await second.get("kept")).toBe("yes");
    await second.close();
  });

  it("an unreachable Redis is a clear unavailable error", async () => {
    await expect(openStore("redis://127.0.0.1:1")).rejects.toMatchObject({
      kind: "unavailable",
      message: expect.stringContaining("state store (Redis) is unreachable"),
    });
  });

  it("refuses a state it does not know, saying what it takes", async () => {
    await expect(openStore("mongodb://x")).rejects.toThrow(
      'write "memory", "sqlite:PATH", or a Redis\'s redis://, rediss:// or unix:/// URL',
    );
  });
});
