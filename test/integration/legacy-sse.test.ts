import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { META_TOOL_NAMES, textOf } from "../helpers/mcp-client.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const alice = token("alice", ["*:/**"]);
const bob = token("bob", ["*:/**"]);

/** An old client that speaks only the HTTP+SSE transport of 2024-11-05, with a token. */
async function connectSse(url: string, who: { bearer: string }): Promise<Client> {
  const headers = bearer(who);
  const client = new Client({ name: "old-client", version: "1.0.0" });
  await client.connect(
    new SSEClientTransport(new URL(url), {
      requestInit: { headers },
      eventSourceInit: {
        fetch: (input, init) =>
          fetch(input, { ...init, headers: { ...init?.headers, ...headers } }),
      },
    }),
  );
  return client;
}

let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker({
    registry: { predefined: false },
    auth: { tokens: configEntries(alice, bob) },
    tree: [
      {
        path: "/fx",
        source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["pid", "count"] },
      },
    ],
  });
});
afterAll(() => broker?.close());

const openStreams = async () => {
  const metrics = await (await fetch(`${broker.url}/metrics`, { headers: bearer(alice) })).text();
  return Number(/mcp_broker_sessions_open\{endpoint="sse"\} (\d+)/.exec(metrics)?.[1] ?? NaN);
};

describe("the HTTP+SSE transport (2024-11-05)", () => {
  it("serves the tree at /sse: the meta tools, and calls through them", async () => {
    const client = await connectSse(`${broker.url}/sse`, alice);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(META_TOOL_NAMES);
      const tree = await client.callTool({ name: "meta_tree", arguments: { path: "/fx" } });
      expect(textOf(tree)).toContain("/fx/pid");
      expect(await openStreams()).toBe(1);
    } finally {
      await client.close();
    }
    await expect.poll(openStreams, { timeout: 5000 }).toBe(0);
  });

  it("serves one source as itself at /sse/<name>", async () => {
    const client = await connectSse(`${broker.url}/sse/fx`, alice);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["count", "pid"]);
      const pid = await client.callTool({ name: "pid", arguments: {} });
      expect(Number(textOf(pid))).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("asks for a token, and keeps a stream to the token that opened it", async () => {
    expect((await fetch(`${broker.url}/sse`)).status).toBe(401);
    const res = await fetch(`${broker.url}/sse`, { headers: bearer(alice) });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const sessionId = /sessionId=([\w-]+)/.exec(first)![1]!;
    const post = (who: { bearer: string }, query: string) =>
      fetch(`${broker.url}/messages${query}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(who) },
        body: JSON.stringify({ jsonrpc: "2.0", method: "ping", id: 1 }),
      });
    const stolen = await post(bob, `?sessionId=${sessionId}`);
    expect(stolen.status).toBe(403);
    expect(((await stolen.json()) as { error: { message: string } }).error.message).toContain(
      "belongs to another token",
    );
    const unknown = await post(alice, "?sessionId=nope");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      "open one with GET /sse",
    );
    expect((await post(alice, "")).status).toBe(404);
    expect((await post(alice, `?sessionId=${sessionId}`)).status).toBe(202);
    await reader.cancel();
  });

  it("refuses in words a body that is not one JSON-RPC message, whatever its keys", async () => {
    const res = await fetch(`${broker.url}/sse`, { headers: bearer(alice) });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const sessionId = /sessionId=([\w-]+)/.exec(first)![1]!;
    // An own `toString` that is not a function breaks whatever quotes the object as text.
    for (const body of [{ toString: true }, { jsonrpc: "2.0", valueOf: 1, toString: "x" }]) {
      const answer = await fetch(`${broker.url}/messages?sessionId=${sessionId}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(alice) },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toContain(
        "not one JSON-RPC message",
      );
    }
    await reader.cancel();
  });

  it("says so for a body that is not JSON, and for an unknown source", async () => {
    const notJson = await fetch(`${broker.url}/messages?sessionId=x`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(alice) },
      body: "{oops",
    });
    expect(notJson.status).toBe(400);
    const unknown = await fetch(`${broker.url}/sse/nope`, { headers: bearer(alice) });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      'no source named "nope"',
    );
  });

  it("answers any posted body and session id with a 2xx or a 4xx (property)", async () => {
    const res = await fetch(`${broker.url}/sse`, { headers: bearer(alice) });
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const live = /sessionId=([\w-]+)/.exec(first)![1]!;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(live), fc.string({ maxLength: 40 })),
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 80 }),
          fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
        ),
        async (sessionId, body) => {
          const answer = await fetch(
            `${broker.url}/messages?sessionId=${encodeURIComponent(sessionId)}`,
            {
              method: "POST",
              headers: { "content-type": "application/json", ...bearer(alice) },
              body,
            },
          );
          await answer.body?.cancel();
          expect(answer.status).toBeLessThan(500);
        },
      ),
      { numRuns: fuzzRuns(100), seed: 18 },
    );
    await reader.cancel();
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
  });
});
