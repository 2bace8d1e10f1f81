import type { Client as ModernClient } from "@modelcontextprotocol/client";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, connectModern, textOf } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const MODERN = "2026-07-28";
const all = token("all", ["*:/**"]);
const fxOnly = token("fx-only", ["*:/fx/**"]);
let broker: TestBroker;
const opened: { close(): Promise<void> }[] = [];

async function modern(path = "/mcp", headers = {}, answer?: string): Promise<ModernClient> {
  const client = await connectModern(broker.url, headers, {
    path,
    client: { capabilities: answer === undefined ? {} : { sampling: {} } },
  });
  if (answer !== undefined) {
    client.setRequestHandler("sampling/createMessage", async (request) => ({
      role: "assistant",
      model: "stand-in",
      content: {
        type: "text",
        text: `${answer} to ${JSON.stringify(request.params.messages[0]?.content)}`,
      },
    }));
  }
  opened.push(client);
  return client;
}

beforeAll(async () => {
  broker = await startBroker({
    registry: { predefined: false },
    auth: { tokens: configEntries(all, fxOnly) },
    tree: [
      { path: "/fx", source: { backend: "stdio", command: fixtureCommand(), name: "fx" } },
      {
        path: "/c25",
        source: {
          backend: "stdio",
          command: [process.execPath, FIXTURE.replace("fixture-server", "conformance-server")],
          name: "c25",
        },
      },
    ],
  });
});
afterAll(async () => {
  for (const client of opened) await client.close().catch(() => undefined);
  await broker?.close();
});

describe("one URL, both revisions", () => {
  it("serves a 2026-07-28 client on /mcp without initialize or session: discover, list, call", async () => {
    const client = await modern("/mcp", bearer(all));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()).toMatchObject({ name: "mcp-broker" });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "meta_call",
      "meta_desc",
      "meta_run",
      "meta_search",
      "meta_tree",
    ]);
    const tree = await client.callTool({ name: "meta_tree", arguments: { path: "/fx" } });
    expect(textOf(tree)).toContain("/fx/pid");
    const pid = await client.callTool({ name: "meta_call", arguments: { path: "/fx/pid" } });
    expect(Number(textOf(pid))).toBeGreaterThan(0);
  });

  it("serves a 2025-11-25 client on the same URL, in a session of its own revision", async () => {
    const client = await connectHttp(broker.url, bearer(all));
    opened.push(client);
    expect(client.getServerVersion()).toMatchObject({ name: "mcp-broker" });
    const pid = await client.callTool({ name: "meta_call", arguments: { path: "/fx/pid" } });
    expect(Number(textOf(pid))).toBeGreaterThan(0);
    const modernPid = await (
      await modern("/mcp", bearer(all))
    ).callTool({ name: "meta_call", arguments: { path: "/fx/pid" } });
    expect(textOf(modernPid)).toBe(textOf(pid));
  });

  it("serves a source as itself at /mcp/<name> in 2026-07-28, with the backend's tools and policy", async () => {
    const client = await modern("/mcp/fx", bearer(fxOnly));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("pid");
    const pid = await client.callTool({ name: "pid", arguments: {} });
    expect(Number(textOf(pid))).toBeGreaterThan(0);
  });

  it("applies the same policy to a 2026-07-28 caller: no token is 401, a foreign path is refused", async () => {
    const noToken = await fetch(`${broker.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", "mcp-protocol-version": MODERN },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(noToken.status).toBe(401);
    const client = await modern("/mcp", bearer(fxOnly));
    const tree = await client.callTool({ name: "meta_call", arguments: { path: "/nowhere/x" } });
    expect(tree.isError).toBe(true);
  });
});

describe("changes, to a 2026-07-28 client", () => {
  it("reach it on a subscriptions/listen stream of /mcp/<name>", async () => {
    const client = await modern("/mcp/fx", bearer(all));
    let heard = 0;
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      heard += 1;
    });
    const stream = await client.listen({ toolsListChanged: true });
    await client.callTool({ name: "add_tool", arguments: { name: "late_http" } });
    await expect.poll(() => heard, { timeout: 5000 }).toBeGreaterThan(0);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("late_http");
    await stream.close();
  });
});

describe("a 2026-07-28 client calling a 2025-era backend that asks for sampling", () => {
  it("gets the backend's question as an input-required round, and the backend gets its answer", async () => {
    const client = await modern("/mcp/fx", bearer(all), "forty-two");
    const result = await client.callTool({ name: "ask", arguments: { question: "meaning?" } });
    expect(textOf(result)).toBe('answer: forty-two to {"type":"text","text":"meaning?"}');
  });

  it("a client that does not offer sampling is not asked: the backend is refused, the call answered", async () => {
    const client = await modern("/mcp/fx", bearer(all));
    const result = await client.callTool({ name: "ask", arguments: { question: "meaning?" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(
      "sampling/createMessage refused: the client of the call in flight does not offer sampling",
    );
  });

  it("and elicitation the same way, answered by the client's own handler", async () => {
    const client = await connectModern(broker.url, bearer(all), {
      path: "/mcp/c25",
      client: { capabilities: { elicitation: {} } },
    });
    opened.push(client);
    client.setRequestHandler("elicitation/create", async (request) => {
      expect(request.params.message).toBe("Your favourite colour?");
      return { action: "accept", content: { response: "teal" } };
    });
    const result = await client.callTool({
      name: "test_elicitation",
      arguments: { message: "Your favourite colour?" },
    });
    expect(textOf(result)).toBe('User response: action=accept, content={"response":"teal"}');
  });

  it("works the same through the aggregated endpoint's meta_call", async () => {
    const client = await modern("/mcp", bearer(all), "yes");
    const result = await client.callTool({
      name: "meta_call",
      arguments: { path: "/fx/ask", args: { question: "ok?" } },
    });
    expect(textOf(result)).toContain("answer: yes to");
  });

  it("while a 2025-era client on the same backend gets the same question as a sampling request", async () => {
    const client = await connectHttp(broker.url, bearer(all), {
      path: "/mcp/fx",
      client: { capabilities: { sampling: {} } },
    });
    opened.push(client);
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      model: "stand-in",
      content: { type: "text", text: "legacy" },
    }));
    const result = await client.callTool({ name: "ask", arguments: { question: "q" } });
    expect(textOf(result)).toBe("answer: legacy");
  });
});

/** One raw 2026-07-28 request, with the envelope and headers the revision asks for. */
async function raw(
  path: string,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${broker.url}${path}`, {
    method: "POST",
    signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
      ...bearer(all),
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
        },
      },
    }),
  });
  const text = await res.text();
  const json = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1];
  return { status: res.status, body: json ? JSON.parse(json) : text };
}

describe("the request state the broker hands a 2026-07-28 client", () => {
  const ask = { name: "ask", arguments: { question: "why?" } };

  async function firstRound(): Promise<{ state: string; key: string }> {
    const { body } = await raw("/mcp/fx", "tools/call", ask);
    expect(body.result, JSON.stringify(body)).toMatchObject({ resultType: "input_required" });
    const [key, request] = Object.entries(body.result.inputRequests)[0] as [string, any];
    expect(request).toMatchObject({ method: "sampling/createMessage" });
    expect(request.params.messages[0].content.text).toBe("why?");
    return { state: body.result.requestState, key };
  }
  const answer = { role: "assistant", model: "m", content: { type: "text", text: "because" } };

  it("continues the call when echoed with the answer, once", async () => {
    const { state, key } = await firstRound();
    const next = { ...ask, inputResponses: { [key]: answer }, requestState: state };
    const done = await raw("/mcp/fx", "tools/call", next);
    expect(done.body.result).toMatchObject({ content: [{ text: "answer: because" }] });
    // The same state again: its call has ended.
    const replay = await raw("/mcp/fx", "tools/call", next);
    expect(replay.body.error).toMatchObject({ code: -32602 });
    expect(replay.body.error.message).toContain("requestState");
  });

  it("refuses tampered state without touching the call", async () => {
    const { state, key } = await firstRound();
    const [version, body, mac] = state.split(".");
    const forged = Buffer.from(body!, "base64url")
      .toString()
      .replace(/"round":\d+/, '"round":9');
    const tampered = [version, Buffer.from(forged).toString("base64url"), mac].join(".");
    const refused = await raw("/mcp/fx", "tools/call", {
      ...ask,
      inputResponses: { [key]: answer },
      requestState: tampered,
    });
    expect(refused.body.error).toMatchObject({ code: -32602 });
    // The genuine state still continues the call.
    const done = await raw("/mcp/fx", "tools/call", {
      ...ask,
      inputResponses: { [key]: answer },
      requestState: state,
    });
    expect(done.body.result.content[0].text).toBe("answer: because");
  });

  it("refuses another caller's state", async () => {
    const { state, key } = await firstRound();
    const foreign = await raw(
      "/mcp/fx",
      "tools/call",
      { ...ask, inputResponses: { [key]: answer }, requestState: state },
      bearer(fxOnly),
    );
    expect(foreign.body.error).toMatchObject({ code: -32602 });
    const done = await raw("/mcp/fx", "tools/call", {
      ...ask,
      inputResponses: { [key]: answer },
      requestState: state,
    });
    expect(done.body.result.content[0].text).toBe("answer: because");
  });

  it("asks again for an answer the round left out", async () => {
    const { state } = await firstRound();
    const again = await raw("/mcp/fx", "tools/call", {
      ...ask,
      inputResponses: {},
      requestState: state,
    });
    expect(again.body.result).toMatchObject({ resultType: "input_required" });
    expect(Object.values(again.body.result.inputRequests)).toHaveLength(1);
    expect(again.body.result.requestState).not.toBe(state);
  });
});

describe("a 2026-07-28 request given up by its client", () => {
  it("cancels the call at the backend", async () => {
    const client = await modern("/mcp/fx", bearer(all));
    const count = async () =>
      Number(textOf(await client.callTool({ name: "cancelled_count", arguments: {} })));
    const before = await count();
    const abort = new AbortController();
    const sent = raw(
      "/mcp/fx",
      "tools/call",
      { name: "sleep", arguments: { ms: 10_000 } },
      {},
      abort.signal,
    );
    await expect
      .poll(async () => textOf(await client.callTool({ name: "sleeping", arguments: {} })))
      .toBe("1");
    abort.abort();
    await expect(sent).rejects.toThrow();
    await expect.poll(count, { timeout: 5000 }).toBe(before + 1);
  });
});

describe("2026-07-28 header validation", () => {
  it("refuses an Mcp-Method header that does not match the body", async () => {
    const res = await raw("/mcp", "tools/list", {}, { "mcp-method": "tools/call" });
    expect(res.body.error).toBeDefined();
    expect(res.status).toBe(400);
  });

  it("refuses a modern envelope whose header names another revision", async () => {
    const res = await raw("/mcp", "tools/list", {}, { "mcp-protocol-version": "2025-11-25" });
    expect(res.status).toBe(400);
  });
});
