import fc from "fast-check";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";

/**
 * What other instances could send a broker sharing Redis: any session id on
 * any request, and anything at all on the session and input-bridge
 * channels. The invariant: a 4xx that names the problem, never a 5xx, and
 * the broker still answers afterwards.
 */
const hasRedis = await redisAvailable();
let broker: TestBroker;
let publisher: Redis;

beforeAll(async () => {
  if (!hasRedis) return;
  broker = await startBroker({
    state: REDIS_URL,
    registry: { predefined: false },
    tree: [
      {
        path: "/fx",
        source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["pid"] },
      },
    ],
  });
  publisher = new Redis(REDIS_URL);
});
afterAll(async () => {
  publisher?.disconnect();
  await broker?.close();
});

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

describe.runIf(hasRedis)("a broker sharing Redis, fed anything", () => {
  it("answers any session id with a 4xx, never a 5xx", async () => {
    const sessionId = fc.oneof(
      fc.uuid(),
      fc.string({ minLength: 1, maxLength: 80 }).filter((s) => /^[\x21-\x7e]+$/.test(s)),
    );
    const body = fc.oneof(
      fc.constant({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      fc.constant({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }),
      fc.constant({ jsonrpc: "2.0", id: 9, result: {} }),
      fc.jsonValue({ maxDepth: 3 }),
    );
    await fc.assert(
      fc.asyncProperty(
        sessionId,
        body,
        fc.constantFrom("POST", "GET", "DELETE"),
        async (id, b, method) => {
          const res = await fetch(`${broker.url}/mcp`, {
            method,
            headers: { ...HEADERS, "mcp-session-id": id },
            ...(method === "POST" ? { body: JSON.stringify(b) } : {}),
          });
          await res.text();
          expect(res.status, `${method} ${id}`).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
        },
      ),
      { seed: 41, numRuns: fuzzRuns(150) },
    );
  }, 60_000);

  it("ignores anything published on its channels", async () => {
    const message = fc.oneof(
      fc.constantFrom("null", "[]", "0", '"x"', "{}"),
      fc.string({ maxLength: 200 }),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      fc
        .record({
          session: fc.oneof(fc.uuid(), fc.string()),
          from: fc.constantFrom("client", "server", "end", "other"),
          body: fc.jsonValue({ maxDepth: 3 }),
        })
        .map((v) => JSON.stringify(v)),
      fc
        .record({
          type: fc.constantFrom("round", "cancel", "notify", "reply", "x"),
          to: fc.string(),
          from: fc.string(),
          id: fc.string(),
          round: fc.jsonValue({ maxDepth: 3 }),
        })
        .map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("mcp-broker:sessions", "mcp-broker:input-bridge"),
        message,
        async (channel, text) => {
          await publisher.publish(channel, text);
        },
      ),
      { seed: 42, numRuns: fuzzRuns(300) },
    );
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
    const call = await broker.post("/meta_call", { path: "/fx/pid" });
    expect(call.status).toBe(200);
  }, 60_000);
});
