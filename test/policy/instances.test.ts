import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { capturingLogger, fixtureCommand, startBroker, writeConfig } from "../helpers/broker.js";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { ownRedis, REDIS_URL, redisAvailable } from "../helpers/services.js";

const hasRedis = await redisAvailable();
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const running: BrokerProcess[] = [];
afterAll(async () => {
  await Promise.all(running.map((b) => b.stop()));
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/meta_call`, { method: "POST", headers, body: JSON.stringify(body) }).then(
    async (r) => ({
      status: r.status,
      body: (await r.json()) as any,
    }),
  );

describe("two broker processes sharing one Redis", () => {
  it.runIf(hasRedis)("honour each other's idempotency keys and share one rate limit", async () => {
    const config = writeConfig({
      state: REDIS_URL,
      rate_limits: [{ token: "*", path: `/fx${run}/pid`, per_minute: 60, burst: 4 }],
      tree: [
        {
          path: `/fx${run}`,
          source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["count", "pid"] },
        },
      ],
    });
    const [a, b] = await Promise.all([spawnBroker(config), spawnBroker(config)]);
    running.push(a, b);

    const key = { "idempotency-key": `shared-${run}` };
    const first = await post(a.url, { path: `/fx${run}/count`, args: { note: "x" } }, key);
    const second = await post(b.url, { path: `/fx${run}/count`, args: { note: "x" } }, key);
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect((await post(b.url, { path: `/fx${run}/count`, args: { note: "y" } }, key)).status).toBe(
      409,
    );
    // b's own backend never ran the call: its first count is 1.
    expect(
      (await post(b.url, { path: `/fx${run}/count`, args: {} })).body.output.content[0].text,
    ).toBe("1");

    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(i % 2 ? a.url : b.url, { path: `/fx${run}/pid` }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
  });
});

describe("the sqlite store", () => {
  it("keeps idempotency records across a broker restart", async () => {
    const state = `sqlite:${join(mkdtempSync(join(tmpdir(), "mcp-broker-sqlite-")), "state.db")}`;
    const config = {
      state,
      tree: [
        {
          path: "/fx",
          source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["count"] },
        },
      ],
    };
    const before = await startBroker(config);
    const key = { "idempotency-key": "survives" };
    const first = await before.post("/meta_call", { path: "/fx/count", args: {} }, key);
    await before.close();
    const after = await startBroker(config);
    const again = await after.post("/meta_call", { path: "/fx/count", args: {} }, key);
    expect(again.body).toEqual(first.body);
    expect(
      (await after.post("/meta_call", { path: "/fx/count", args: {} })).body.output.content[0].text,
    ).toBe("1");
    await after.close();
  });
});

/**
 * A broker on `redis` with a fixture's `count` tool, whose log the test reads,
 * and a `count` call with an idempotency key, which needs the store.
 */
async function countingBroker(redisPort: number) {
  const { log, lines } = capturingLogger();
  const broker = await startBroker(
    {
      state: `redis://127.0.0.1:${redisPort}`,
      tree: [
        {
          path: "/fx",
          source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["count"] },
        },
      ],
    },
    { log },
  );
  const keyed = (key: string) =>
    broker.post("/meta_call", { path: "/fx/count", args: {} }, { "idempotency-key": key });
  return { broker, lines, keyed };
}

const NOT_RUN =
  "the state store (Redis) is unreachable; the call was not run (the broker log says why)";

describe("a state store that becomes unreachable", () => {
  it("fails the calls that need it with a clear unavailable, and serves the others", async () => {
    const redis = await ownRedis();
    if (!redis) return;
    const { broker, lines, keyed } = await countingBroker(redis.port);
    try {
      expect((await keyed("a")).status).toBe(200);
      redis.process.kill("SIGKILL");
      await new Promise((r) => redis.process.once("exit", r));
      const res = await keyed("b");
      expect(res.status).toBe(503);
      // Where the store is, and how it failed, is for the log, not for the caller.
      expect(res.body.error.message).toBe(NOT_RUN);
      expect(lines()).toContainEqual(
        expect.objectContaining({ msg: "state store command failed", store: "redis" }),
      );
      expect((await broker.post("/meta_call", { path: "/fx/count", args: {} })).status).toBe(200);
    } finally {
      redis.process.kill("SIGKILL");
      await broker.close();
    }
  });

  it("that answers nothing (paused, partitioned): calls fail within seconds, not at their timeout", async () => {
    const redis = await ownRedis();
    if (!redis) return;
    const { broker, keyed } = await countingBroker(redis.port);
    const admin = new Redis(redis.port, "127.0.0.1");
    try {
      expect((await keyed("a")).status).toBe(200);
      // Redis takes connections and commands, and answers none for 20 s: a stall as a
      // failover or a partition without resets makes it.
      await admin.call("CLIENT", "PAUSE", "20000", "ALL");
      const started = Date.now();
      const res = await keyed("b");
      expect(res.status).toBe(503);
      expect(res.body.error.message).toBe(NOT_RUN);
      expect(Date.now() - started).toBeLessThan(6000);
    } finally {
      admin.disconnect();
      redis.process.kill("SIGKILL");
      await broker.close();
    }
  });
});
