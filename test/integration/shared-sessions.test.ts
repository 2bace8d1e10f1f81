import {
  CreateMessageRequestSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, writeConfig } from "../helpers/broker.js";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { textOf } from "../helpers/mcp-client.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

/**
 * Two broker processes sharing Redis, and an SDK client whose requests a
 * router of the test's own sends to either: round-robin, or by what each
 * request is, to put a session's parts on different instances on purpose.
 */
const hasRedis = await redisAvailable();
const alice = token("alice", ["*:/**"]);
const bob = token("bob", ["*:/**"]);
const instances: BrokerProcess[] = [];
let config = "";

beforeAll(async () => {
  if (!hasRedis) return;
  config = writeConfig({
    state: REDIS_URL,
    expose: "meta",
    registry: { predefined: false },
    auth: { tokens: configEntries(alice, bob) },
    tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
  });
  instances.push(...(await Promise.all([spawnBroker(config), spawnBroker(config)])));
}, 30_000);
afterAll(async () => {
  await Promise.all(instances.map((b) => b.stop()));
});

type Route = (request: { method: string; body: string; index: number }) => number;
const roundRobin: Route = ({ index }) => index % 2;

/** A 1.x SDK client of `/mcp` whose every HTTP request goes to the instance `route` picks. */
async function clientThrough(route: Route, who = alice, capabilities = {}) {
  const hits = instances.map(() => 0);
  let index = 0;
  const fetchVia = (input: string | URL | Request, init?: RequestInit) => {
    const body = typeof init?.body === "string" ? init.body : "";
    const target = route({ method: init?.method ?? "GET", body, index: index++ });
    hits[target]! += 1;
    const url = new URL(String(input instanceof Request ? input.url : input));
    const base = new URL(instances[target]!.url);
    url.host = base.host;
    return fetch(url, init);
  };
  const client = new Client({ name: "rr", version: "1" }, { capabilities });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${instances[0]!.url}/mcp`), {
      fetch: fetchVia,
      requestInit: { headers: bearer(who) },
    }),
  );
  return { client, hits };
}

/** A raw JSON-RPC body POSTed in a session, to one instance, with one token. */
const postInSession = (
  sessionId: string,
  instance: number,
  who: { bearer: string },
  body: unknown,
) =>
  fetch(`${instances[instance]!.url}/mcp`, {
    method: "POST",
    headers: {
      ...bearer(who),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify(body),
  });

/** A raw tools/list in a session, sent to one instance with one token. */
const listToolsIn = (sessionId: string, instance: number, who: { bearer: string }) =>
  postInSession(sessionId, instance, who, { jsonrpc: "2.0", id: 1, method: "tools/list" });

/** Has instance `at`'s backend say that `uri` changed, through `client`'s session. */
async function touch(client: Client, at: number, uri: string): Promise<void> {
  const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
  const res = await postInSession(sessionId, at, alice, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "meta_call", arguments: { path: "/fx/touch", args: { uri } } },
  });
  expect(await res.text()).toContain("sent");
}

/** The URIs of the resource updates `client` hears, as they come. */
function updatesOf(client: Client): string[] {
  const updates: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  return updates;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const metaCall = (client: Client, path: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name: "meta_call", arguments: { path, args } });

describe.runIf(hasRedis)("one MCP session served by two instances sharing Redis", () => {
  it("answers every request whichever instance gets it", async () => {
    const { client, hits } = await clientThrough(roundRobin);
    expect((await client.listTools()).tools).toHaveLength(5);
    const pids = new Set<string>();
    for (let i = 0; i < 10; i++) pids.add(textOf(await metaCall(client, "/fx/pid")));
    // Both instances served the session, each calling its own backend.
    expect(hits[0]).toBeGreaterThan(4);
    expect(hits[1]).toBeGreaterThan(4);
    expect(pids.size).toBe(2);
    await client.close();
  });

  it("carries a client's answer to a sampling request to the instance that asked", async () => {
    // The call goes to instance 1, everything else (the answer too) to instance 0.
    const { client, hits } = await clientThrough(
      ({ body }) => (body.includes('"/fx/ask"') ? 1 : 0),
      alice,
      { sampling: {} },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
      role: "assistant",
      model: "test",
      content: { type: "text", text: `re: ${JSON.stringify(request.params.messages[0]!.content)}` },
    }));
    const answer = await metaCall(client, "/fx/ask", { question: "ping" });
    expect(textOf(answer)).toContain("answer: re:");
    expect(hits[1]).toBe(1);
    await client.close();
  });

  it("sends resource updates from the stream's instance, for a subscription made on another", async () => {
    // The stream (GET) is on instance 0; the subscription is made on instance 1.
    const { client } = await clientThrough(({ method, body }) =>
      method !== "GET" && body.includes("resources/subscribe") ? 1 : 0,
    );
    const updates = updatesOf(client);
    const uri = "mcp-broker://fx/test%3A%2F%2Fa";
    await client.subscribeResource({ uri });
    // Instance 0 follows the subscription a moment later, on its own backend.
    await expect
      .poll(async () => (await touch(client, 0, "test://a"), updates.length), { timeout: 5000 })
      .toBeGreaterThan(0);
    expect(new Set(updates)).toEqual(new Set([uri]));
    // The polling may have touched more than once: let every update of it arrive first.
    await sleep(300);
    // Instance 1's backend also heard the subscribe; what it says is not sent twice.
    const before = updates.length;
    await touch(client, 1, "test://a");
    await touch(client, 0, "test://a");
    await expect.poll(() => updates.length, { timeout: 5000 }).toBe(before + 1);
    await sleep(300);
    expect(updates.length).toBe(before + 1);
    await client.close();
  });

  it("ends a subscription on every instance whichever gets the unsubscribe", async () => {
    const { client } = await clientThrough(({ method, body }) =>
      method !== "GET" && body.includes("resources/unsubscribe") ? 1 : 0,
    );
    const updates = updatesOf(client);
    const [a, b] = ["a", "b"].map((n) => `mcp-broker://fx/test%3A%2F%2F${n}`) as [string, string];
    await client.subscribeResource({ uri: a });
    await client.subscribeResource({ uri: b });
    await client.unsubscribeResource({ uri: a });
    await sleep(300);
    await touch(client, 0, "test://a");
    await touch(client, 0, "test://b");
    await expect.poll(() => updates, { timeout: 5000 }).toContain(b);
    await sleep(300);
    expect(updates).not.toContain(a);
    await client.close();
  });

  it("keeps a client's subscriptions when the instance holding its stream is lost", async () => {
    const victim = instances.push(await spawnBroker(config)) - 1;
    let lost = false;
    // Everything on the victim until it is killed, then on instance 0.
    const { client } = await clientThrough(() => (lost ? 0 : victim));
    const updates = updatesOf(client);
    const uri = "mcp-broker://fx/test%3A%2F%2Fa";
    await client.subscribeResource({ uri });
    lost = true;
    instances[victim]!.child.kill("SIGKILL");
    // The client opens its stream again, on instance 0, which takes the subscription up.
    await expect
      .poll(async () => (await touch(client, 0, "test://a"), updates.length), {
        timeout: 15_000,
        interval: 500,
      })
      .toBeGreaterThan(0);
    expect(new Set(updates)).toEqual(new Set([uri]));
    await client.close();
  }, 30_000);

  it("takes malformed subscription changes on any instance without harm to the session", async () => {
    const { client } = await clientThrough(() => 0);
    const updates = updatesOf(client);
    const uri = "mcp-broker://fx/test%3A%2F%2Fa";
    await client.subscribeResource({ uri });
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const change = fc.record(
      {
        jsonrpc: fc.constant("2.0"),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.object()),
        method: fc.constantFrom("resources/subscribe", "resources/unsubscribe"),
        params: fc.oneof(fc.anything(), fc.record({ uri: fc.anything() })),
      },
      { requiredKeys: ["method"] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(change, fc.array(change, { maxLength: 3 })), async (body) => {
        const res = await postInSession(sessionId, 1, alice, body);
        await res.text();
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: fuzzRuns(60), seed: 19 },
    );
    // The session and its subscription are whole, on both instances.
    expect((await client.listTools()).tools).toHaveLength(5);
    await expect
      .poll(async () => (await touch(client, 0, "test://a"), updates.length), { timeout: 5000 })
      .toBeGreaterThan(0);
    await client.close();
  });

  it("ends a session everywhere when its client ends it", async () => {
    const { client } = await clientThrough(({ method }) => (method === "DELETE" ? 1 : 0));
    await client.listTools();
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    // The end reaches the other instance on the bus, a moment later.
    const status = () => listToolsIn(sessionId, 0, alice).then((r) => r.status);
    await expect.poll(status, { timeout: 2000 }).toBe(404);
  });

  it("keeps a session its token's own on every instance", async () => {
    const { client } = await clientThrough(() => 0);
    await client.listTools();
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;
    const res = await listToolsIn(sessionId, 1, bob);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("belongs to another token");
    await client.close();
  });
});

describe.runIf(hasRedis)(
  "an HTTP+SSE (2024-11-05) stream, its messages posted to another instance",
  () => {
    /** An old client whose stream is on instance 0 and whose POSTs go to instance 1. */
    async function sseAcross(who = alice): Promise<{ client: Client; messagesUrl: () => string }> {
      const headers = bearer(who);
      let messagesUrl = "";
      const to = (instance: number) => (input: string | URL | Request, init?: RequestInit) => {
        const url = new URL(String(input instanceof Request ? input.url : input));
        url.host = new URL(instances[instance]!.url).host;
        if (init?.method === "POST") messagesUrl = url.href;
        return fetch(url, { ...init, headers: { ...init?.headers, ...headers } });
      };
      const client = new Client({ name: "old-client", version: "1" });
      await client.connect(
        new SSEClientTransport(new URL(`${instances[0]!.url}/sse`), {
          fetch: to(1),
          eventSourceInit: { fetch: to(0) },
        }),
      );
      return { client, messagesUrl: () => messagesUrl };
    }

    it("answers on the stream what was posted to the other instance", async () => {
      const { client } = await sseAcross();
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("meta_call");
      const pid = textOf(await metaCall(client, "/fx/pid"));
      // The call ran on the stream's instance, whose backend answered.
      for (let i = 0; i < 3; i++) expect(textOf(await metaCall(client, "/fx/pid"))).toBe(pid);
      await client.close();
    });

    it("keeps a stream its token's own, and says what is wrong with a message", async () => {
      const { client, messagesUrl } = await sseAcross();
      await client.listTools();
      const post = (who: { bearer: string }, body: string) =>
        fetch(messagesUrl(), {
          method: "POST",
          headers: { ...bearer(who), "content-type": "application/json" },
          body,
        });
      const foreign = await post(bob, JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }));
      expect(foreign.status).toBe(403);
      expect(await foreign.text()).toContain("belongs to another token");
      const malformed = await post(alice, JSON.stringify({ jsonrpc: "2.0", method: 7 }));
      expect(malformed.status).toBe(400);
      expect(await malformed.text()).toContain("not one JSON-RPC message");
      const unknown = await fetch(`${instances[1]!.url}/messages?sessionId=nope`, {
        method: "POST",
        headers: { ...bearer(alice), "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      expect(unknown.status).toBe(404);
      // Whatever is posted on the other instance gets a 2xx or a 4xx, never an error of ours.
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.json(),
            fc.string(),
            fc
              .record({ jsonrpc: fc.constant("2.0"), method: fc.string(), id: fc.anything() })
              .map((message) => JSON.stringify(message) ?? "null"),
          ),
          async (body) => {
            const res = await post(alice, body);
            await res.text();
            expect(res.status).toBeLessThan(500);
          },
        ),
        { numRuns: fuzzRuns(60), seed: 22 },
      );
      // The stream is whole.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    });
  },
);

describe.runIf(hasRedis)(
  "a 2026-07-28 call between input-required rounds, across instances",
  () => {
    it("continues on the instance holding the call when its next round reaches the other", async () => {
      const hits = [0, 0];
      // The first round to instance 0; the round that carries requestState to instance 1.
      const fetchVia = (input: string | URL | Request, init?: RequestInit) => {
        const body = typeof init?.body === "string" ? init.body : "";
        const target = body.includes("requestState") ? 1 : 0;
        hits[target]! += 1;
        const url = new URL(String(input instanceof Request ? input.url : input));
        url.host = new URL(instances[target]!.url).host;
        return fetch(url, init);
      };
      const client = new ModernClient(
        { name: "relay", version: "2" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { sampling: {} } },
      );
      client.setRequestHandler("sampling/createMessage", async (request) => ({
        role: "assistant",
        model: "stand-in",
        content: {
          type: "text",
          text: `relayed ${JSON.stringify(request.params.messages[0]?.content)}`,
        },
      }));
      await client.connect(
        new ModernTransport(new URL(`${instances[0]!.url}/mcp`), {
          fetch: fetchVia,
          requestInit: { headers: bearer(alice) },
        }),
      );
      const result = await client.callTool({
        name: "meta_call",
        arguments: { path: "/fx/ask", args: { question: "across?" } },
      });
      expect(textOf(result)).toBe('answer: relayed {"type":"text","text":"across?"}');
      expect(hits[1]).toBeGreaterThanOrEqual(1);
      await client.close();
    });
  },
);
