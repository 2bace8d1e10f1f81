import { afterEach, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, INITIALIZE, postMcp } from "../helpers/mcp-client.js";

const brokers: TestBroker[] = [];
afterEach(async () => {
  for (const b of brokers.splice(0)) await b.close();
});

async function brokerWith(sessions: { max?: number; idle_timeout_s?: number }) {
  const broker = await startBroker({
    sessions,
    tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
  });
  brokers.push(broker);
  return broker;
}

/** Opens a session with a raw initialize; its id, or the refusal. */
async function open(url: string): Promise<{ status: number; id: string | null; body: string }> {
  const res = await postMcp(`${url}/mcp`, INITIALIZE);
  return { status: res.status, id: res.headers.get("mcp-session-id"), body: await res.text() };
}

/** A ping in a session: 200 while it is open, 404 once it is closed. */
async function ping(url: string, id: string): Promise<number> {
  const res = await postMcp(
    `${url}/mcp`,
    { jsonrpc: "2.0", id: 2, method: "ping" },
    {
      "mcp-session-id": id,
      "mcp-protocol-version": "2025-11-25",
    },
  );
  await res.text();
  return res.status;
}

describe("MCP sessions are bounded", () => {
  it("closes a session idle past idle_timeout_s; its client gets 404", async () => {
    const broker = await brokerWith({ idle_timeout_s: 0.3 });
    const { id } = await open(broker.url);
    expect(await ping(broker.url, id!)).toBe(200);
    // Not polled: each ping would keep it in use.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await ping(broker.url, id!)).toBe(404);
  });

  it("at max, closes the least recently used idle session to make room", async () => {
    const broker = await brokerWith({ max: 2 });
    const a = (await open(broker.url)).id!;
    const b = (await open(broker.url)).id!;
    expect(await ping(broker.url, a)).toBe(200); // a is now the more recently used
    const c = await open(broker.url);
    expect(c.status).toBe(200);
    expect(await ping(broker.url, b)).toBe(404);
    expect(await ping(broker.url, a)).toBe(200);
    expect(await ping(broker.url, c.id!)).toBe(200);
  });

  it("at max with every session busy, refuses a new one with 503 saying why", async () => {
    const broker = await brokerWith({ max: 1 });
    const client = await connectHttp(broker.url);
    const { promise: started, resolve: onStart } = Promise.withResolvers<void>();
    const slow = client.callTool(
      { name: "meta_call", arguments: { path: "/fx/sleep", args: { ms: 1500 } } },
      undefined,
      { onprogress: () => onStart() },
    );
    await started;
    const refused = await open(broker.url);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).error.message).toContain("(sessions.max)");
    await slow;
    expect((await open(broker.url)).status).toBe(200);
    await client.close().catch(() => undefined);
  });

  it("keeps memory bounded: many initializes without DELETE never pass max", async () => {
    const broker = await brokerWith({ max: 20 });
    for (let i = 0; i < 200; i++) expect((await open(broker.url)).status).toBe(200);
    const metrics = await (await fetch(`${broker.url}/metrics`)).text();
    expect(metrics).toContain('mcp_broker_sessions_open{endpoint="http"} 20');
  });
});
