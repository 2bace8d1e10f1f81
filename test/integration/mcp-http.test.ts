import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { EventSourceParserStream, type EventSourceMessage } from "eventsource-parser/stream";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  everythingCommand,
  fixtureCommand,
  rawServerSource,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";
import {
  connectHttp,
  connectModern,
  INITIALIZE,
  META_TOOL_NAMES,
  openRawSession,
  postMcp,
  textOf,
} from "../helpers/mcp-client.js";

const tree = [
  {
    path: "/demo",
    source: {
      backend: "stdio",
      command: everythingCommand(),
      tool_filter: ["echo", "get-sum", "trigger-long-running-operation"],
    },
  },
  {
    path: "/fx",
    source: {
      backend: "stdio",
      command: fixtureCommand(),
      tool_filter: ["add_tool", "sleep", "big", "late_*", "ask"],
      tool_overrides: { big: { max_output_chars: 200 } },
    },
  },
];

describe("MCP over Streamable HTTP, expose: meta", () => {
  let broker: TestBroker;
  let client: Client;
  beforeAll(async () => {
    broker = await startBroker({ tree, registry: { predefined: false } });
    client = await connectHttp(broker.url);
  });
  afterAll(async () => {
    await client?.close();
    await broker?.close();
  });

  it("offers exactly the five meta tools, with short descriptions", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(META_TOOL_NAMES);
    for (const t of tools)
      expect(t.description!.length).toBeLessThan(t.name === "meta_run" ? 1024 : 160);
  });

  it("navigates, describes and calls", async () => {
    const root = JSON.parse(
      textOf(await client.callTool({ name: "meta_tree", arguments: { path: "/" } })),
    );
    expect(root.children.map((c: any) => c.path)).toEqual(["/demo", "/fx"]);
    const desc = JSON.parse(
      textOf(await client.callTool({ name: "meta_desc", arguments: { path: "/demo/get-sum" } })),
    );
    expect(desc.args_schema.required).toEqual(["a", "b"]);
    const sum = await client.callTool({
      name: "meta_call",
      arguments: { path: "/demo/get-sum", args: { a: 1, b: 2 } },
    });
    expect(textOf(sum)).toBe("The sum of 1 and 2 is 3.");
    expect(sum.isError).toBeFalsy();
  });

  it("answers errors as tool results the model can act on", async () => {
    const missing = await client.callTool({ name: "meta_desc", arguments: { path: "/nope" } });
    expect(missing.isError).toBe(true);
    expect(JSON.parse(textOf(missing)).error.kind).toBe("not_found");
    const bad = await client.callTool({
      name: "meta_call",
      arguments: { path: "/demo/get-sum", args: { a: "x" } },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain("missing required argument 'b'");
    const relative = await client.callTool({ name: "meta_tree", arguments: { path: "demo" } });
    expect(relative.isError).toBe(true);
    expect(textOf(relative)).toContain('$.path: must be an absolute path such as \\"/demo\\"');
    // Arguments sent as JSON text (a common slip of models) are refused saying how to send them.
    const stringified = await client.callTool({
      name: "meta_call",
      arguments: { path: "/demo/get-sum", args: '{"a": 1, "b": 2}' },
    });
    expect(stringified.isError).toBe(true);
    expect(textOf(stringified)).toContain("not a string: send the object itself");
    const typo = await client.callTool({
      name: "meta_call",
      arguments: { path: "/demo/get-sum", arg: { a: 1, b: 2 } },
    });
    expect(textOf(typo)).toContain('Unrecognized key: \\"arg\\" (did you mean \\"args\\"?)');
    const trailing = JSON.parse(
      textOf(await client.callTool({ name: "meta_tree", arguments: { path: "/demo/" } })),
    );
    expect(trailing.path).toBe("/demo");
    const noPath = await client.callTool({ name: "meta_desc", arguments: {} });
    expect(noPath.isError).toBe(true);
    expect(textOf(noPath)).toContain("$.path: expected a string");
    const wrongType = await client.callTool({ name: "meta_tree", arguments: { path: 5 } });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toContain("$.path: expected a string");
    const unknownKey = await client.callTool({
      name: "meta_search",
      arguments: { query: "sum", limt: 3 },
    });
    expect(unknownKey.isError).toBe(true);
    expect(textOf(unknownKey)).toContain("limt");
  });

  it("refuses a flat tool name in meta mode with -32602", async () => {
    await expect(
      client.callTool({ name: "demo__echo", arguments: { message: "x" } }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("relays progress of a long call to the caller", async () => {
    const seen: number[] = [];
    const result = await client.callTool(
      {
        name: "meta_call",
        arguments: {
          path: "/demo/trigger-long-running-operation",
          args: { duration: 0.3, steps: 3 },
        },
      },
      undefined,
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(result.isError).toBeFalsy();
    // server-everything sends its last progress right before the result; the SDK
    // client drops progress that arrives after the result, directly as well.
    expect(seen.slice(0, 2)).toEqual([1, 2]);
  });

  it("truncates in MCP too, saying so", async () => {
    const result = await client.callTool({
      name: "meta_call",
      arguments: { path: "/fx/big", args: { chars: 1000, items: 0 } },
    });
    const wrapper = JSON.parse(textOf(result));
    expect(wrapper).toMatchObject({ truncated: true, max_output_chars: 200 });
  });

  it("keeps one backend process per source however many clients connect", async () => {
    const clients = await Promise.all(Array.from({ length: 5 }, () => connectHttp(broker.url)));
    const pids = await Promise.all(
      clients.map(async (c) =>
        textOf(
          await c.callTool({
            name: "meta_call",
            arguments: { path: "/fx/sleep", args: { ms: 0 } },
          }),
        ),
      ),
    );
    expect(new Set(pids).size).toBe(1);
    await Promise.all(clients.map((c) => c.close()));
    expect(broker.broker.health().sources["/fx"]!.restarts).toBe(0);
  });
});

describe("MCP over Streamable HTTP, expose: flat", () => {
  let broker: TestBroker;
  let client: Client;
  beforeAll(async () => {
    broker = await startBroker({ tree, expose: "flat", registry: { predefined: false } });
    client = await connectHttp(broker.url);
  });
  afterAll(async () => {
    await client?.close();
    await broker?.close();
  });

  it("offers every leaf as a tool named from its path, with its schema", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([
      "demo__echo",
      "demo__get-sum",
      "demo__trigger-long-running-operation",
      "fx__add_tool",
      "fx__ask",
      "fx__big",
      "fx__sleep",
    ]);
    expect(tools.find((t) => t.name === "demo__get-sum")!.inputSchema.required).toEqual(["a", "b"]);
  });

  it("calls a leaf and returns the backend's content as it was", async () => {
    const result = await client.callTool({ name: "demo__echo", arguments: { message: "flat" } });
    expect(result.content).toEqual([{ type: "text", text: "Echo: flat" }]);
  });

  it("unknown tool: -32602; invalid arguments: an isError result", async () => {
    await expect(client.callTool({ name: "meta_tree", arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    // A flat name mistyped, or without its node, names the tool likely meant.
    for (const name of ["demo__ehco", "echo", "Demo__Echo"]) {
      await expect(client.callTool({ name, arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(`unknown tool "${name}" (did you mean demo__echo?)`),
      });
    }
    const bad = await client.callTool({ name: "demo__get-sum", arguments: { a: 1 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain("missing required argument 'b'");
  });

  it("rebuilds the leaves when a backend announces tools/list_changed, and tells connected clients", async () => {
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified += 1;
    });
    await client.callTool({ name: "fx__add_tool", arguments: { name: "late_tool" } });
    await expect.poll(() => notified, { timeout: 5000 }).toBeGreaterThan(0);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("fx__late_tool");
    expect(textOf(await client.callTool({ name: "fx__late_tool", arguments: {} }))).toBe(
      "late_tool",
    );
  });
});

describe("MCP session handling", () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker({ tree: [] });
  });
  afterAll(() => broker?.close());

  it("an unknown session id: 404 with a JSON-RPC error saying to initialize again", async () => {
    const res = await postMcp(
      `${broker.url}/mcp`,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      { "mcp-session-id": "nope" },
    );
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.message).toMatch(/initialize/);
  });

  it("a request before initialize is refused and leaves no session behind", async () => {
    const res = await postMcp(
      `${broker.url}/mcp`,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    );
    expect(res.status).toBe(400);
  });

  it("malformed JSON-RPC gets a parse error, and the endpoint keeps serving", async () => {
    const res = await postMcp(`${broker.url}/mcp`, "{not json");
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe(-32700);
    const client = await connectHttp(broker.url);
    expect((await client.listTools()).tools).toHaveLength(5);
    await client.close();
  });

  it("413 for an oversized body on /mcp, and the endpoint keeps serving", async () => {
    const res = await postMcp(`${broker.url}/mcp`, {
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(2 * 1024 * 1024) },
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.kind).toBe("too_large");
    const client = await connectHttp(broker.url);
    expect((await client.listTools()).tools).toHaveLength(5);
    await client.close();
  });

  it("413 for an oversized body sent in chunks, without Content-Length, on /mcp and /mcp/<name>", async () => {
    for (const path of ["/mcp", "/mcp/fx"]) {
      const big = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(2 * 1024 * 1024)}"}}`;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(big);
          for (let at = 0; at < bytes.length; at += 64 * 1024)
            controller.enqueue(bytes.subarray(at, at + 64 * 1024));
          controller.close();
        },
      });
      const res = await fetch(`${broker.url}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
        duplex: "half",
      } as RequestInit);
      expect(res.headers.get("content-length")).not.toBeNull();
      expect(res.status).toBe(413);
      expect(((await res.json()) as any).error.kind).toBe("too_large");
    }
    const client = await connectHttp(broker.url);
    expect((await client.listTools()).tools).toHaveLength(5);
    await client.close();
  });

  it("serves a body sent in chunks, without Content-Length, like any other", async () => {
    const res = await fetch(`${broker.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(JSON.stringify(INITIALIZE));
          controller.enqueue(bytes.subarray(0, 10));
          controller.enqueue(bytes.subarray(10));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(res.headers.get("mcp-session-id")).toBeTruthy();
    expect(await res.text()).toContain('"serverInfo"');
  });

  it("DELETE ends a session", async () => {
    const client = await connectHttp(broker.url);
    const transport = client.transport as unknown as {
      sessionId?: string;
      terminateSession(): Promise<void>;
    };
    const id = transport.sessionId!;
    await transport.terminateSession();
    const res = await postMcp(
      `${broker.url}/mcp`,
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      { "mcp-session-id": id },
    );
    expect(res.status).toBe(404);
  });
});

const initialize = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

describe("MCP over Streamable HTTP, stateless", () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker({ tree, expose: "both", http: { stateless: true } });
  });
  afterAll(() => broker?.close());

  it("serves every request on its own, with no session, so any instance can take it", async () => {
    const client = await connectHttp(broker.url);
    expect((client.transport as unknown as { sessionId?: string }).sessionId).toBeUndefined();
    expect(
      textOf(await client.callTool({ name: "demo__echo", arguments: { message: "no session" } })),
    ).toBe("Echo: no session");
    const other = await connectHttp(broker.url, {}, { path: "/mcp/fx" });
    expect((await other.listTools()).tools.map((t) => t.name)).toContain("sleep");
    await Promise.all([client.close(), other.close()]);
  });

  it("answers a raw POST with plain JSON, and GET with 405", async () => {
    const post = await postMcp(`${broker.url}/mcp`, initialize("2025-11-25"));
    expect(post.headers.get("content-type")).toMatch(/application\/json/);
    expect(((await post.json()) as any).result.protocolVersion).toBe("2025-11-25");
    const older = await postMcp(`${broker.url}/mcp`, initialize("2025-06-18"));
    expect(((await older.json()) as any).result.protocolVersion).toBe("2025-06-18");
    const get = await fetch(`${broker.url}/mcp`, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });

  it("serves 2026-07-28 clients as in session mode, that revision having no sessions", async () => {
    const client = await connectModern(broker.url, {}, { path: "/mcp/fx" });
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("sleep");
    const aggregated = await connectModern(broker.url);
    const echo = await aggregated.callTool({ name: "demo__echo", arguments: { message: "2026" } });
    expect(textOf(echo)).toBe("Echo: 2026");
    await Promise.all([client.close(), aggregated.close()]);
  });

  it("ends at the sources what a request without a session set there: a log level is not kept for nobody", async () => {
    const ended = vi.spyOn(broker.broker, "endSession");
    const res = await postMcp(
      `${broker.url}/mcp/fx`,
      { jsonrpc: "2.0", id: 5, method: "logging/setLevel", params: { level: "debug" } },
      { "mcp-protocol-version": "2025-11-25" },
    );
    expect(((await res.json()) as any).result).toEqual({});
    await expect.poll(() => ended.mock.calls.length).toBe(1);
    ended.mockRestore();
  });

  it("refuses at once a backend's sampling request that a 2025-era request cannot carry, and the next caller is not held by it", async () => {
    const asked: string[] = [];
    const client = await connectHttp(
      broker.url,
      {},
      {
        path: "/mcp/fx",
        client: { capabilities: { sampling: {} } },
      },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push("sampling");
      return { role: "assistant", model: "stand-in", content: { type: "text", text: "never" } };
    });
    // Far less than the tool's timeout: a refusal must not wait for it.
    const signal = AbortSignal.timeout(10_000);
    const first = await client.callTool({ name: "ask", arguments: { question: "q" } }, undefined, {
      signal,
    });
    expect(first.isError).toBe(true);
    expect(textOf(first)).toMatch(/stateless \(http\.stateless\)/);
    const second = await client.callTool({ name: "ask", arguments: { question: "q" } }, undefined, {
      signal,
    });
    expect(textOf(second)).toMatch(/stateless \(http\.stateless\)/);
    expect(asked).toEqual([]);
    await client.close();
  });
});

/** The events of an SSE body as they arrive, until `stop` says enough. */
async function events(
  res: Response,
  stop: (event: EventSourceMessage) => boolean,
): Promise<EventSourceMessage[]> {
  const reader = res
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  const seen: EventSourceMessage[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return seen;
    seen.push(value);
    if (stop(value)) {
      await reader.cancel();
      return seen;
    }
  }
}

describe("resumable streams (http.resumable)", () => {
  const call = (ms: number) => ({
    jsonrpc: "2.0",
    id: 9,
    method: "tools/call",
    params: { name: "fx__sleep", arguments: { ms } },
  });

  it("are off by default: a call's stream carries no event ids", async () => {
    const broker = await startBroker({ tree, expose: "flat" });
    try {
      const session = await openRawSession(`${broker.url}/mcp`);
      // Its progress comes before its answer, so the answer is a stream.
      const streamed = { ...call(10), params: { ...call(10).params, _meta: { progressToken: 1 } } };
      const res = await postMcp(`${broker.url}/mcp`, streamed, session);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      const seen = await events(res, (e) => e.data.includes('"result"'));
      expect(seen[0]!.data).toContain("notifications/progress");
      expect(seen.some((e) => e.data.includes("slept 10"))).toBe(true);
      expect(seen.every((e) => e.id === undefined)).toBe(true);
    } finally {
      await broker.close();
    }
  });

  it("when on, a client whose stream broke gets the rest with Last-Event-ID", async () => {
    const broker = await startBroker({ tree, expose: "flat", http: { resumable: true } });
    try {
      const session = await openRawSession(`${broker.url}/mcp`);
      const res = await postMcp(`${broker.url}/mcp`, call(800), session);
      // The first event (the stream's priming event) has an id; the stream then breaks.
      const [first] = await events(res, (e) => e.id !== undefined);
      expect(first!.id).toBeTruthy();
      // Until the broker has seen the broken stream close, the stream is still "in use" (409).
      const resume = () =>
        fetch(`${broker.url}/mcp`, {
          headers: { ...session, accept: "text/event-stream", "last-event-id": first!.id! },
        });
      let resumed = await resume();
      for (let i = 0; resumed.status === 409 && i < 40; i++) {
        await resumed.body?.cancel();
        await new Promise((r) => setTimeout(r, 50));
        resumed = await resume();
      }
      expect(resumed.status).toBe(200);
      const rest = await events(resumed, (e) => e.data.includes('"result"'));
      expect(rest.some((e) => e.data.includes("slept 800"))).toBe(true);
    } finally {
      await broker.close();
    }
  });
});

describe("a session's answers without a stream", () => {
  const fx = [
    {
      path: "/fx",
      source: {
        backend: "stdio",
        command: fixtureCommand(),
        tool_filter: ["sleep", "sleeping", "cancelled_count"],
      },
    },
  ];
  const request = (id: number, name: string, args: Record<string, unknown> = {}) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker({ tree: fx, expose: "flat" });
  });
  afterAll(async () => {
    await broker?.close();
  });

  /** What a flat tool answers in a session of its own, as text. */
  async function ask(name: string): Promise<string> {
    const session = await openRawSession(`${broker.url}/mcp`);
    const res = await postMcp(`${broker.url}/mcp`, request(1, name), session);
    return ((await res.json()) as { result: { content: { text: string }[] } }).result.content[0]!
      .text;
  }

  it("answers a call that sends nothing first as plain JSON, in its session", async () => {
    const session = await openRawSession(`${broker.url}/mcp`);
    const res = await postMcp(`${broker.url}/mcp`, request(7, "fx__sleep", { ms: 1 }), session);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("mcp-session-id")).toBe(session["mcp-session-id"]);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: "slept 1" }] },
    });
  });

  it("cancels a call so answered at the backend when its client cancels it", async () => {
    const client = await connectHttp(broker.url);
    const before = Number(await ask("fx__cancelled_count"));
    const controller = new AbortController();
    const call = client
      .callTool({ name: "fx__sleep", arguments: { ms: 10_000 } }, undefined, {
        signal: controller.signal,
      })
      .catch((e: unknown) => e);
    await expect.poll(() => ask("fx__sleeping")).toBe("1");
    controller.abort("changed my mind");
    expect(await call).toBeInstanceOf(Error);
    await expect.poll(() => ask("fx__cancelled_count")).toBe(String(before + 1));
    await client.close();
  });

  it("ends a waiting answer when its session ends, and the call with it", async () => {
    const session = await openRawSession(`${broker.url}/mcp`);
    const before = Number(await ask("fx__cancelled_count"));
    const waiting = postMcp(`${broker.url}/mcp`, request(3, "fx__sleep", { ms: 10_000 }), session);
    await expect.poll(() => ask("fx__sleeping")).toBe("1");
    const ended = await fetch(`${broker.url}/mcp`, { method: "DELETE", headers: session });
    expect(ended.status).toBe(200);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
    await expect.poll(() => ask("fx__cancelled_count")).toBe(String(before + 1));
  });
});

describe("a backend's progress written with its answer", () => {
  // The backend's last progress and its answer arrive in one read: the
  // progress must not be lost to the answer that follows it.
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker({
      tree: [{ path: "/raw", source: rawServerSource({}) }],
      expose: "flat",
    });
  });
  afterAll(() => broker?.close());

  const nap = (id: number, meta: Record<string, unknown> = {}) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "raw__nap", arguments: {}, _meta: { ...meta, progressToken: id } },
  });

  /** The messages of a call's stream: its progress, then its answer. */
  async function expectProgressFirst(res: Response, id: number): Promise<void> {
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const seen = await events(res, (e) => e.data.includes('"result"'));
    const messages = seen.filter((e) => e.data).map((e) => JSON.parse(e.data) as object);
    expect(messages).toEqual([
      expect.objectContaining({ method: "notifications/progress" }),
      expect.objectContaining({ id }),
    ]);
  }

  it("reaches a 2025-era session's caller, before the answer", async () => {
    const session = await openRawSession(`${broker.url}/mcp`);
    for (let id = 1; id <= 20; id++)
      await expectProgressFirst(await postMcp(`${broker.url}/mcp`, nap(id), session), id);
  });

  it("reaches a 2026-07-28 caller, before the answer", async () => {
    for (let id = 1; id <= 20; id++) {
      const modern = nap(id, {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      });
      const res = await postMcp(`${broker.url}/mcp`, modern, {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "raw__nap",
      });
      await expectProgressFirst(res, id);
    }
  });
});
