import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const admin = token("admin", ["*:/**"]);
const caller = token("caller", ["tree:/**", "describe:/**", "call:/fx/count"]);
const reader = token("reader", ["tree:/fx/**", "describe:/fx/**"]);
let broker: TestBroker;

beforeAll(async () => {
  const fx = (path: string) => ({
    path,
    source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["count", "pid"] },
  });
  broker = await startBroker({
    expose: "both",
    auth: { tokens: configEntries(admin, caller, reader) },
    tree: [fx("/fx"), fx("/other")],
    registry: { predefined: false },
  });
});
afterAll(() => broker?.close());

describe("tokens and scopes over REST", () => {
  it("401 with WWW-Authenticate for no token, an unknown one, or a malformed header", async () => {
    for (const headers of [
      {},
      { authorization: "Bearer nope" },
      { authorization: "Token abc" },
    ] as Record<string, string>[]) {
      const res = await broker.post("/meta_tree", { path: "/" }, headers);
      expect(res.status).toBe(401);
      expect(res.body.error.kind).toBe("unauthenticated");
    }
    const raw = await fetch(`${broker.url}/meta_tree`, { method: "POST", body: "{}" });
    expect(raw.headers.get("www-authenticate")).toBe('Bearer realm="mcp-broker"');
  });

  it("says how to pass a token when none came, and is no authorization server to look for", async () => {
    const res = await broker.post("/mcp", {});
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain(
      "this broker takes the tokens its config lists (no OAuth sign-in)",
    );
    // Clients that find no OAuth (404) ask for the token; a 401 here read as "registration rejected".
    for (const [method, path] of [
      ["GET", "/.well-known/oauth-authorization-server"],
      ["GET", "/.well-known/oauth-authorization-server/mcp"],
      ["GET", "/.well-known/openid-configuration"],
      ["POST", "/register"],
      ["GET", "/authorize"],
      ["POST", "/token"],
    ]) {
      const found = await fetch(`${broker.url}${path}`, { method });
      expect(found.status, path).toBe(404);
      expect(((await found.json()) as any).error.message).toContain(
        "the broker is not an authorization server",
      );
    }
  });

  it("403 for a known token outside its scopes, naming token and path", async () => {
    const res = await broker.post("/meta_call", { path: "/fx/pid", args: {} }, bearer(caller));
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({
      kind: "forbidden",
      details: { token: "caller", path: "/fx/pid" },
    });
    expect(
      (await broker.post("/meta_call", { path: "/fx/count", args: {} }, bearer(caller))).status,
    ).toBe(200);
    expect(
      (await broker.post("/meta_call", { path: "/fx/count", args: {} }, bearer(reader))).status,
    ).toBe(403);
  });

  it("meta_tree shows only what the caller may see", async () => {
    const root = await broker.post("/meta_tree", { path: "/" }, bearer(reader));
    expect(root.body.children.map((c: any) => c.path)).toEqual(["/fx"]);
    // What it may not see is not there, as far as it can tell: the answer an absent path gets.
    const hidden = await broker.post("/meta_tree", { path: "/other" }, bearer(reader));
    const absent = await broker.post("/meta_tree", { path: "/nowhere" }, bearer(reader));
    expect([hidden.status, absent.status]).toEqual([404, 404]);
    expect(hidden.body.error.message.replace("/other", "P")).toBe(
      absent.body.error.message.replace("/nowhere", "P"),
    );
    expect(
      (await broker.post("/meta_tree", { path: "/" }, bearer(admin))).body.children,
    ).toHaveLength(2);
  });

  it("/metrics needs an admin scope", async () => {
    expect((await fetch(`${broker.url}/metrics`, { headers: bearer(caller) })).status).toBe(403);
    const res = await fetch(`${broker.url}/metrics`, { headers: bearer(admin) });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('mcp_broker_source_up{source="/fx"} 1');
    expect(text).toMatch(/mcp_broker_calls_total\{source="\/fx",outcome="forbidden"\} \d+/);
    // The standard process and Node.js metrics, by the names dashboards use.
    for (const name of [
      "process_resident_memory_bytes",
      "nodejs_heap_size_used_bytes",
      "nodejs_eventloop_lag_seconds",
    ])
      expect(text).toMatch(new RegExp(`^${name}(\\{[^}]*\\})? \\d`, "m"));
    // Observed at each collection of garbage, which has no count until the first.
    expect(text).toContain("# TYPE nodejs_gc_duration_seconds histogram");
  });
});

describe("tokens and scopes over MCP", () => {
  it("401 at the HTTP level without a token", async () => {
    await expect(connectHttp(broker.url)).rejects.toThrow(/unauthenticated/);
  });

  it("lists only the tools the caller may call, and refuses the others with the HTTP status in data", async () => {
    const client = await connectHttp(broker.url, bearer(caller));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["meta_tree", "meta_desc", "meta_search", "meta_call", "fx__count"]);
    // A flat tool tools/list does not show is unknown, whether it exists or not.
    await expect(client.callTool({ name: "fx__pid", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('unknown tool "fx__pid"'),
    });
    // Nor is it named as what a typo meant.
    await expect(client.callTool({ name: "fx__pi", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: unknown tool "fx__pi"; tools/list shows the tools there are',
    });
    // Through meta_call, a tool it sees but may not call is refused, naming the scope.
    await expect(
      client.callTool({ name: "meta_call", arguments: { path: "/fx/pid", args: {} } }),
    ).rejects.toMatchObject({ code: -32600, data: { kind: "forbidden", http_status: 403 } });
    expect(textOf(await client.callTool({ name: "fx__count", arguments: {} }))).toMatch(/^\d+$/);
    await client.close();
  });

  it("a session belongs to the token that opened it", async () => {
    const client = await connectHttp(broker.url, bearer(caller));
    const sessionId = (client.transport as unknown as { sessionId: string }).sessionId;
    const res = await fetch(`${broker.url}/mcp`, {
      method: "POST",
      headers: {
        ...bearer(admin),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(res.status).toBe(403);
    await client.close();
  });
});

describe("malformed policy headers", () => {
  it("an idempotency key over 255 characters is invalid params", async () => {
    const res = await broker.post(
      "/meta_call",
      { path: "/fx/count", args: {} },
      { ...bearer(admin), "idempotency-key": "k".repeat(300) },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("an idempotency key is 1 to 255 characters");
  });
});

describe("scopes on what is not a tool call", () => {
  it("a source's resources need a describe scope that reaches its node", async () => {
    // A source it may not know of has no endpoint, as one that is not there.
    await expect(connectHttp(broker.url, bearer(reader), { path: "/mcp/other" })).rejects.toThrow(
      /no source named \\"other\\"; the sources are fx"/,
    );
    const calls = await connectHttp(broker.url, bearer(caller), { path: "/mcp/other" });
    await expect(calls.listResources()).resolves.toBeDefined();
    await calls.close();
    const allowed = await connectHttp(broker.url, bearer(reader), { path: "/mcp/fx" });
    expect((await allowed.listResources()).resources.map((r) => r.uri)).toContain("test://a");
    await allowed.close();
  });

  it("the aggregated /mcp lists the resources of the sources the caller may see, and no others", async () => {
    const client = await connectHttp(broker.url, bearer(reader));
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toContain("mcp-broker://fx/test%3A%2F%2Fa");
    expect(uris.some((u) => u.startsWith("mcp-broker://other/"))).toBe(false);
    await client.close();
  });
});

describe("content types", () => {
  it("the REST meta API reads JSON whatever the Content-Type says (so curl -d works)", async () => {
    const res = await fetch(`${broker.url}/meta_tree`, {
      method: "POST",
      headers: { ...bearer(admin), "content-type": "text/plain" },
      body: JSON.stringify({ path: "/" }),
    });
    expect(res.status).toBe(200);
  });

  it("MCP refuses a body that is not declared JSON, with 415", async () => {
    const res = await fetch(`${broker.url}/mcp`, {
      method: "POST",
      headers: {
        ...bearer(admin),
        "content-type": "text/plain",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(res.status).toBe(415);
  });
});
