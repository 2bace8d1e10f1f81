import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const hasRedis = await redisAvailable();
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

describe.each([
  ["memory", "memory", true],
  ["sqlite", `sqlite:${join(mkdtempSync(join(tmpdir(), "mcp-broker-policy-")), "state.db")}`, true],
  ["redis", REDIS_URL, hasRedis],
])("idempotency and rate limits on the %s store", (name, state, available) => {
  const caller = token(`caller-${name}-${run}`, ["*:/**"]);
  let broker: TestBroker;
  beforeAll(async () => {
    if (!available) return;
    broker = await startBroker({
      state,
      auth: { tokens: configEntries(caller) },
      rate_limits: [{ token: caller.id, path: "/fx/pid", per_minute: 60, burst: 5 }],
      tree: [
        {
          path: "/fx",
          source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["count", "pid"] },
        },
      ],
    });
  });
  afterAll(() => broker?.close());
  const call = (args: unknown, key?: string) =>
    broker.post(
      "/meta_call",
      { path: "/fx/count", args },
      { ...bearer(caller), ...(key ? { "idempotency-key": key } : {}) },
    );

  it.runIf(available)(
    "50 concurrent calls with one key: one execution, 50 identical answers",
    async () => {
      const key = `race-${run}`;
      const answers = await Promise.all(Array.from({ length: 50 }, () => call({ ms: 100 }, key)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      const outputs = new Set(answers.map((a) => JSON.stringify(a.body.output)));
      expect(outputs.size).toBe(1);
      const first = Number(answers[0]!.body.output.content[0].text);
      const next = Number((await call({})).body.output.content[0].text);
      expect(next).toBe(first + 1);
    },
  );

  it.runIf(available)(
    "the same key with another payload is 409; a repeat is not run again",
    async () => {
      const key = `k-${run}`;
      const a = await call({ note: "a" }, key);
      const again = await call({ note: "a" }, key);
      expect(again.body).toEqual(a.body);
      const conflict = await call({ note: "b" }, key);
      expect(conflict.status).toBe(409);
      expect(conflict.body.error).toMatchObject({
        kind: "idempotency_conflict",
        details: { idempotency_key: key },
      });
    },
  );

  it.runIf(available)("_meta.idempotencyKey works in MCP", async () => {
    const client = await connectHttp(broker.url, bearer(caller));
    const params = {
      name: "meta_call",
      arguments: { path: "/fx/count", args: {} },
      _meta: { idempotencyKey: `mcp-${run}` },
    };
    const first = textOf(await client.callTool(params));
    expect(textOf(await client.callTool(params))).toBe(first);
    await expect(
      client.callTool({ ...params, arguments: { path: "/fx/count", args: { note: "other" } } }),
    ).rejects.toMatchObject({ data: { kind: "idempotency_conflict", http_status: 409 } });
    await client.close();
  });

  it.runIf(available)(
    "a burst of 20 concurrent calls over a bucket of 5: exactly 5 pass, 15 get 429 with Retry-After",
    async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${broker.url}/meta_call`, {
            method: "POST",
            headers: bearer(caller),
            body: JSON.stringify({ path: "/fx/pid" }),
          }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(15);
      const refused = results.find((r) => r.status === 429)!;
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as any).error.message).toMatch(
        /over its rate limit of 60 calls a minute on \/fx\/pid/,
      );
    },
  );
});

describe("policy refusals over MCP, and key expiry", () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker({
      idempotency: { ttl_s: 0.3 },
      rate_limits: [{ token: "*", path: "/fx/pid", per_minute: 60, burst: 1 }],
      tree: [
        {
          path: "/fx",
          source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["count", "pid"] },
        },
      ],
    });
  });
  afterAll(() => broker?.close());

  it("over the rate limit: -32600 with http_status 429 and the seconds to wait", async () => {
    const client = await connectHttp(broker.url, {}, { path: "/mcp/fx" });
    await client.callTool({ name: "pid", arguments: {} });
    await expect(client.callTool({ name: "pid", arguments: {} })).rejects.toMatchObject({
      code: -32600,
      data: { kind: "rate_limited", http_status: 429, retry_after_s: expect.any(Number) },
    });
    await client.close();
  });

  it("a key runs the tool again once its TTL has passed", async () => {
    const key = { "idempotency-key": `ttl-${run}` };
    const first = await broker.post("/meta_call", { path: "/fx/count", args: {} }, key);
    expect((await broker.post("/meta_call", { path: "/fx/count", args: {} }, key)).body).toEqual(
      first.body,
    );
    await new Promise((r) => setTimeout(r, 400));
    const later = await broker.post("/meta_call", { path: "/fx/count", args: {} }, key);
    expect(Number(later.body.output.content[0].text)).toBe(
      Number(first.body.output.content[0].text) + 1,
    );
  });
});
