import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startBroker, writeConfig, type TestBroker } from "../helpers/broker.js";
import { spawnBroker } from "../helpers/broker-process.js";
import { SqliteStore } from "../../src/state/sqlite.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";
import { searchTool, startToolService, type ToolService } from "../helpers/tool-service.js";

const redis = await redisAvailable();
const onRedis = redis || process.env.CI === "true" ? it : it.skip;
if (!redis) console.warn(`skipped: the Redis registry tests need Redis at ${REDIS_URL}`);

const running: { close(): Promise<void> }[] = [];
const services: ToolService[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((b) => b.close()));
  await Promise.all(services.splice(0).map((s) => s.kill()));
});

/** A broker whose registry holds only what the test registers (no predefined tools). */
async function broker(
  config: { registry?: object } & Record<string, unknown>,
): Promise<TestBroker> {
  const b = await startBroker({
    tree: [],
    ...config,
    registry: { predefined: false, ...config.registry },
  });
  running.push(b);
  return b;
}

async function service(...args: Parameters<typeof startToolService>): Promise<ToolService> {
  const s = await startToolService(...args);
  services.push(s);
  return s;
}

/** What the tests need of a broker, in this process or in its own. */
type Reachable = Pick<TestBroker, "post">;

let nextId = 1;
const rpc = (b: Reachable, method: string, params: object) =>
  b.post("/rpc", { jsonrpc: "2.0", method, params, id: nextId++ });
const register = (b: Reachable, tool: object) => rpc(b, "tools/register", { tool });
const call = (b: Reachable, tool: string, fn = "echo", args: object = { n: 1 }) =>
  rpc(b, "tools/call", { tool_name: tool, function_name: fn, arguments: args });
const names = async (b: Reachable) =>
  (await rpc(b, "tools/list", {})).body.result.tools.map((t: { name: string }) => t.name);

describe("a service that dies and comes back", () => {
  it("fails calls with -32006 while it is down, serves them again once it is back, and opens its breaker after five failures", async () => {
    const b = await broker({});
    let flaky = await service("healthy");
    const port = flaky.port;
    await register(b, searchTool(flaky.url, { name: "flaky" }));
    expect((await call(b, "flaky")).body.result.data).toEqual({ n: 1 });

    await flaky.kill();
    const down = await call(b, "flaky");
    expect(down.body.error).toMatchObject({ code: -32006 });
    expect(down.body.error.data.details).toContain(`could not reach http://127.0.0.1:${port}`);

    flaky = await service("healthy", { port });
    expect((await call(b, "flaky")).body.result.data).toEqual({ n: 1 });

    await flaky.kill();
    for (let i = 0; i < 5; i++) expect((await call(b, "flaky")).body.error.code).toBe(-32006);
    // Refused by the open breaker, not by an attempt: the words say which.
    const fast = await call(b, "flaky");
    expect(fast.body.error.data.details).toMatch(
      /tool service flaky is unavailable: its circuit breaker is open after repeated failures \(last: could not reach/,
    );
    expect(fast.body.error.data.retry_after_s).toBeGreaterThan(25);

    // The breaker's state shows everywhere a user looks.
    const listed = (await rpc(b, "tools/list", {})).body.result.tools[0];
    expect(listed).toMatchObject({ status: "UNAVAILABLE", health: { breaker: "open" } });
    const health = await rpc(b, "health/check", { tool_name: "flaky" });
    expect(health.body.result).toMatchObject({ status: "unhealthy", breaker: "open" });
    expect(health.body.result.last_error).toContain("could not reach");
    const healthz = await fetch(`${b.url}/healthz?details`);
    const details = (await healthz.json()) as { registry: Record<string, unknown> };
    expect(details.registry.flaky).toMatchObject({
      status: "UNAVAILABLE",
      breaker: "open",
    });
    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    expect(metrics).toContain('mcp_broker_registry_breaker_state{tool="flaky",state="open"} 1');
    expect(metrics).toContain(
      'mcp_broker_registry_tool_status{tool="flaky",status="UNAVAILABLE"} 1',
    );
  });

  it("checks services on its interval and reports an unhealthy one", async () => {
    const b = await broker({ registry: { health_check_interval_s: 1 } });
    const sick = await service("unhealthy");
    await register(b, searchTool(sick.url, { name: "sick" }));
    await expect
      .poll(async () => (await sick.stats()).checks, { timeout: 5000 })
      .toBeGreaterThanOrEqual(2);
    const listed = (await rpc(b, "tools/list", {})).body.result.tools[0];
    expect(listed.health).toMatchObject({ healthy: false, last_error: "the index is offline" });
  });

  it("sends health/check to health_check_url, and answers a MAINTENANCE tool with -32006 without calling it", async () => {
    const b = await broker({});
    const [calls, checks] = [await service("healthy"), await service("unhealthy")];
    await register(
      b,
      searchTool(calls.url, { name: "split", health_check_url: `${checks.url}health` }),
    );
    const health = await rpc(b, "health/check", { tool_name: "split" });
    expect(health.body.result).toMatchObject({
      status: "unhealthy",
      last_error: "the index is offline",
    });
    expect((await checks.stats()).checks).toBe(1);
    expect((await calls.stats()).checks).toBe(0);

    await register(b, searchTool(calls.url, { name: "resting", status: "MAINTENANCE" }));
    const before = (await calls.stats()).calls;
    const { body } = await call(b, "resting");
    expect(body.error).toMatchObject({ code: -32006 });
    expect(body.error.data.details).toContain("in maintenance");
    expect((await calls.stats()).calls).toBe(before);
    expect((await rpc(b, "health/check", { tool_name: "resting" })).body.result.status).toBe(
      "maintenance",
    );
  });

  it("sends a call again, per retry_count, when the service could not be reached at all", async () => {
    const b = await broker({});
    const late = await service("healthy");
    const port = late.port;
    const tool = searchTool(late.url, { name: "retried" });
    (tool.functions[1] as { retry_count?: number }).retry_count = 5;
    await register(b, tool);
    await late.kill();
    const answer = call(b, "retried");
    // The service comes back while the broker is retrying.
    await new Promise((resolve) => setTimeout(resolve, 150));
    await service("healthy", { port });
    expect((await answer).body.result?.data).toEqual({ n: 1 });
  });

  it("gives a changed definition a new version, and keeps the old id for no other", async () => {
    const b = await broker({});
    const s = await service("healthy");
    const v1 = await register(b, searchTool(s.url, { name: "evolving" }));
    const v2 = await register(
      b,
      searchTool(s.url, { name: "evolving", description: "Now better" }),
    );
    expect([v1.body.result.tool_id, v2.body.result.tool_id]).toEqual([
      "evolving_v1",
      "evolving_v2",
    ]);
    await rpc(b, "tools/unregister", { tool_name: "evolving" });
    const again = await register(b, searchTool(s.url, { name: "evolving" }));
    expect(again.body.result.tool_id).toBe("evolving_v3");
    const desc = await b.post("/meta_desc", { path: "/registry/evolving" });
    expect(desc.body.description).toBe("Web search functionality");
  });

  it("makes a function's timeout_seconds its timeout in the tree", async () => {
    const b = await broker({});
    const slow = await service("slow", { delayMs: 3000 });
    const tool = searchTool(slow.url, { name: "patient" });
    (tool.functions[1] as { timeout_seconds?: number }).timeout_seconds = 1;
    await register(b, tool);
    const started = Date.now();
    const { body } = await call(b, "patient");
    expect(body.error).toMatchObject({ code: -32005 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(2500);
  });
});

describe("the registry in the state store", () => {
  it("survives a broker restart with the sqlite store", async () => {
    const state = `sqlite:${join(mkdtempSync(join(tmpdir(), "mcp-broker-registry-")), "state.db")}`;
    const s = await service("healthy");
    const first = await broker({ state });
    await register(first, searchTool(s.url, { name: "lasting" }));
    await first.close();
    running.splice(running.indexOf(first), 1);

    const second = await broker({ state });
    expect(await names(second)).toEqual(["lasting"]);
    expect((await call(second, "lasting")).body.result.data).toEqual({ n: 1 });
    const tree = await second.post("/meta_tree", { path: "/registry" });
    expect(tree.body.children.map((c: { path: string }) => c.path)).toEqual(["/registry/lasting"]);
  });

  describe("with Redis", () => {
    const KEY = "mcp-broker:registry:catalog";
    const clear = async () => {
      const client = new Redis(REDIS_URL);
      await client.del(KEY);
      client.disconnect();
    };
    afterAll(() => (redis ? clear() : undefined));

    onRedis(
      "shares one registry between two broker processes: a registration on one is callable on the other at once",
      async () => {
        await clear();
        const s = await service("healthy");
        const a = await broker({ state: REDIS_URL });
        const other = await spawnBroker(
          writeConfig({ tree: [], state: REDIS_URL, registry: { predefined: false } }),
        );
        running.push({ close: () => other.stop() });
        const b: Reachable = {
          async post(path, body) {
            const res = await fetch(other.url + path, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body),
            });
            return { status: res.status, body: await res.json() };
          },
        };
        await register(a, searchTool(s.url, { name: "shared" }));
        expect((await call(b, "shared")).body.result.data).toEqual({ n: 1 });
        const mcpTree = await b.post("/meta_tree", { path: "/registry" });
        expect(mcpTree.body.children.map((c: { path: string }) => c.path)).toEqual([
          "/registry/shared",
        ]);
        await rpc(b, "tools/unregister", { tool_name: "shared" });
        await expect.poll(() => names(a), { timeout: 5000 }).toEqual([]);
        expect((await call(a, "shared")).body.error.code).toBe(-32002);
      },
    );

    onRedis("loses no registration when two brokers register at once", async () => {
      await clear();
      const s = await service("healthy");
      const [a, b] = [await broker({ state: REDIS_URL }), await broker({ state: REDIS_URL })];
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          register(i % 2 === 0 ? a : b, searchTool(s.url, { name: `tool_${i}` })),
        ),
      );
      const expected = Array.from({ length: 20 }, (_, i) => `tool_${i}`).sort();
      await expect.poll(async () => (await names(a)).sort(), { timeout: 5000 }).toEqual(expected);
      await expect.poll(async () => (await names(b)).sort(), { timeout: 5000 }).toEqual(expected);
    });
  });
});

describe("an unreadable registry in the store", () => {
  it("is reported and kept as it is: the broker starts, and registrations are refused saying why", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mcp-broker-registry-")), "state.db");
    const store = new SqliteStore(file);
    await store.set("registry:catalog", "{not the registry", 60_000);
    await store.close();
    const b = await broker({ state: `sqlite:${file}` });
    const s = await service("healthy");
    const { status, body } = await register(b, searchTool(s.url, { name: "hopeful" }));
    expect(status).toBe(200);
    expect(body.error).toMatchObject({ code: -32000 });
    expect(body.error.data.details).toContain(
      "the registry in the state store (key registry:catalog) is unreadable; see the broker log",
    );
    const after = new SqliteStore(file);
    expect(await after.get("registry:catalog")).toBe("{not the registry");
    await after.close();
  });
});
