import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp, openRawSession, postMcp, textOf } from "../helpers/mcp-client.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import fc from "fast-check";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fileURLToPath } from "node:url";
import {
  everythingCommand,
  fixtureCommand,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";

const MODERN_FIXTURE = fileURLToPath(new URL("../fixtures/modern-server.mjs", import.meta.url));
const SECRETS_FIXTURE = fileURLToPath(new URL("../fixtures/secrets-server.mjs", import.meta.url));
const modernCommand = () => [process.execPath, MODERN_FIXTURE];

/**
 * The broker's spans, captured in memory: the tree of a call from the
 * caller to a stdio backend, the MCP attributes on each, one trace id from
 * the caller's traceparent to the backend's _meta.
 */
const exporter = new InMemorySpanExporter();
let broker: TestBroker;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }),
  );
  broker = await startBroker({
    tree: [
      { path: "/fx", source: { backend: "stdio", command: fixtureCommand() } },
      { path: "/modern", source: { backend: "stdio", command: modernCommand() } },
    ],
  });
});
afterAll(async () => {
  await broker?.close();
  trace.disable();
  context.disable();
  propagation.disable();
});
beforeEach(() => exporter.reset());

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";
const TRACEPARENT = `00-${TRACE_ID}-${CALLER_SPAN}-01`;
const spans = () => exporter.getFinishedSpans();
const named = (name: string, kind: SpanKind) =>
  spans().find((s) => s.name === name && s.kind === kind);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("traces", () => {
  it("a REST meta_call: SERVER under the caller's span, CLIENT under it, one trace to the backend", async () => {
    const res = await broker.post(
      "/meta_call",
      { path: "/fx/trace_meta", args: {} },
      { traceparent: TRACEPARENT },
    );
    expect(res.status).toBe(200);
    const server = named("tools/call trace_meta", SpanKind.SERVER)!;
    const client = named("tools/call trace_meta", SpanKind.CLIENT)!;
    expect(server.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(server)).toBe(CALLER_SPAN);
    expect(parentOf(client)).toBe(server.spanContext().spanId);
    expect(server.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "trace_meta",
      "gen_ai.operation.name": "execute_tool",
      "mcp_broker.path": "/fx/trace_meta",
    });
    // The backend was given the CLIENT span as its parent, in _meta.
    const seen = JSON.parse(res.body.output.content[0].text) as { traceparent: string };
    expect(seen.traceparent).toBe(`00-${TRACE_ID}-${client.spanContext().spanId}-01`);
    // Neither arguments nor results are recorded.
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain("traceparent");
  });

  it("a meta_run: each call of the script is in the caller's trace, marked with the run's id", async () => {
    // A run before, in a trace of its own: the sandbox's worker starts inside it.
    await broker.post(
      "/meta_run",
      { code: 'await call("/fx/trace_meta", {}); return 0' },
      { traceparent: `00-${"1".repeat(32)}-${CALLER_SPAN}-01` },
    );
    exporter.reset();
    const res = await broker.post(
      "/meta_run",
      { code: 'await call("/fx/trace_meta", {}); return 1' },
      { traceparent: TRACEPARENT },
    );
    expect(res.body).toMatchObject({ result: 1 });
    const inner = spans().filter((s) => s.attributes["mcp_broker.run_id"] === res.body.run_id);
    expect(inner.map((s) => s.attributes["mcp_broker.path"])).toEqual(["/fx/trace_meta"]);
    expect(inner[0]!.spanContext().traceId).toBe(TRACE_ID);
    const backend = named("tools/call trace_meta", SpanKind.CLIENT)!;
    expect(backend.spanContext().traceId).toBe(TRACE_ID);
  });

  it("an MCP meta_call over /mcp: the SERVER span of the request, the leaf INTERNAL, the backend CLIENT", async () => {
    const client = new Client({ name: "trace-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${broker.url}/mcp`)));
    exporter.reset();
    const result = await client.callTool({
      name: "meta_call",
      arguments: { path: "/fx/pid" },
      _meta: { traceparent: TRACEPARENT },
    });
    expect(result.isError).toBeFalsy();
    const server = named("tools/call meta_call", SpanKind.SERVER)!;
    const leaf = named("tools/call pid", SpanKind.INTERNAL)!;
    const backend = named("tools/call pid", SpanKind.CLIENT)!;
    expect(parentOf(server)).toBe(CALLER_SPAN);
    expect(parentOf(leaf)).toBe(server.spanContext().spanId);
    expect(parentOf(backend)).toBe(leaf.spanContext().spanId);
    for (const span of [server, leaf, backend]) expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(server.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "meta_call",
      "mcp.protocol.version": "2025-11-25",
    });
    expect(server.attributes["mcp.session.id"]).toEqual(expect.any(String));
    expect(server.attributes["jsonrpc.request.id"]).toEqual(expect.any(String));
    await client.close();
  });

  it("a tool called by its own name (/mcp/<source>) is one SERVER span, not two", async () => {
    const client = new Client({ name: "trace-test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${broker.url}/mcp/fx`)));
    exporter.reset();
    await client.callTool({ name: "pid", arguments: {} });
    const pid = spans().filter((s) => s.name === "tools/call pid");
    expect(pid.map((s) => s.kind).sort()).toEqual([SpanKind.SERVER, SpanKind.CLIENT].sort());
    const server = pid.find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.attributes["mcp_broker.path"]).toBe("/fx/pid");
    await client.close();
  });

  it("a tool's isError is error.type tool_error; a refusal names its kind", async () => {
    await broker.post("/meta_call", { path: "/fx/fail", args: {} });
    expect(named("tools/call fail", SpanKind.SERVER)!.attributes["error.type"]).toBe("tool_error");
    expect(named("tools/call fail", SpanKind.CLIENT)!.attributes["error.type"]).toBe("tool_error");
    exporter.reset();
    await broker.post("/meta_call", { path: "/fx/sleep", args: { ms: "soon" } });
    expect(named("tools/call sleep", SpanKind.SERVER)!.attributes["error.type"]).toBe(
      "invalid_params",
    );
    expect(named("tools/call sleep", SpanKind.CLIENT)).toBeUndefined();
  });

  it("a call to a 2026-07-28 backend is one trace too", async () => {
    const res = await broker.post(
      "/meta_call",
      { path: "/modern/echo", args: { text: "hi" } },
      { traceparent: TRACEPARENT },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const server = named("tools/call echo", SpanKind.SERVER)!;
    const client = named("tools/call echo", SpanKind.CLIENT)!;
    expect(client.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(client)).toBe(server.spanContext().spanId);
  });
});

describe("a caller's trace context, however malformed", () => {
  it("never fails a request: an invalid one is ignored and the span starts a trace of its own", async () => {
    const headers = await openRawSession(`${broker.url}/mcp`);
    const carrier = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.constantFrom(
        `00-${"0".repeat(32)}-${CALLER_SPAN}-01`,
        `ff-${TRACE_ID}-${CALLER_SPAN}-01`,
        `00-${TRACE_ID.toUpperCase()}-${CALLER_SPAN}-01`,
        `${TRACEPARENT}-extra`,
      ),
    );
    const meta = fc.oneof(carrier, fc.jsonValue({ maxDepth: 2 }));
    await fc.assert(
      fc.asyncProperty(carrier, meta, async (header, inMeta) => {
        exporter.reset();
        const rest = await fetch(`${broker.url}/meta_call`, {
          method: "POST",
          // A header value must be a byte string: others are the client's error, not ours.
          headers: /^[\x20-\x7e]*$/.test(header) ? { traceparent: header } : {},
          body: JSON.stringify({ path: "/fx/pid", args: {} }),
        });
        expect(rest.status).toBe(200);
        await rest.text();
        const mcp = await postMcp(
          `${broker.url}/mcp`,
          {
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: {
              name: "meta_call",
              arguments: { path: "/fx/pid" },
              _meta: { traceparent: inMeta },
            },
          },
          headers,
        );
        expect(mcp.status).toBe(200);
        expect(await mcp.text()).not.toContain('"error"');
        for (const span of spans()) expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
      }),
      { seed: 23, numRuns: fuzzRuns(60) },
    );
  });
});

describe("a bridged call", () => {
  it("a 2025-era client, a 2026-07-28 backend asking for sampling: one trace, the rounds inside the CLIENT span", async () => {
    const client = await connectHttp(
      broker.url,
      {},
      {
        path: "/mcp/modern",
        client: { capabilities: { sampling: {} } },
      },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      model: "stand-in",
      content: { type: "text", text: "42" },
    }));
    exporter.reset();
    const result = await client.callTool({
      name: "ask",
      arguments: { question: "size?" },
      _meta: { traceparent: TRACEPARENT },
    });
    expect(textOf(result)).toContain("answer: 42");
    const server = named("tools/call ask", SpanKind.SERVER)!;
    const backend = named("tools/call ask", SpanKind.CLIENT)!;
    expect(parentOf(server)).toBe(CALLER_SPAN);
    expect(parentOf(backend)).toBe(server.spanContext().spanId);
    expect(backend.spanContext().traceId).toBe(TRACE_ID);
    // One CLIENT span for the whole call: both rounds (the question, then the answer) are in it.
    expect(
      spans().filter((s) => s.kind === SpanKind.CLIENT && s.name === "tools/call ask"),
    ).toHaveLength(1);
    expect(server.attributes["error.type"]).toBeUndefined();
    await client.close();
  });
});

describe("content on spans", () => {
  it("is recorded only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT says so, redacted", async () => {
    const config = {
      redact: ["api_key"],
      tree: [
        { path: "/e", source: { backend: "stdio", command: everythingCommand() } },
        { path: "/s", source: { backend: "stdio", command: [process.execPath, SECRETS_FIXTURE] } },
      ],
    };
    const message = JSON.stringify({ api_key: "k-123", city: "Lyon" });
    const attributesOf = async (b: TestBroker) => {
      exporter.reset();
      const res = await b.post("/meta_call", { path: "/e/echo", args: { message } });
      expect(res.status).toBe(200);
      return named("tools/call echo", SpanKind.SERVER)!.attributes;
    };
    const plain = await startBroker(config);
    process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = "true";
    const capturing = await startBroker(config).finally(
      () => delete process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
    );
    try {
      // The default: nothing of the call's content.
      const quiet = await attributesOf(plain);
      expect(quiet).not.toHaveProperty("gen_ai.tool.call.arguments");
      expect(quiet).not.toHaveProperty("gen_ai.tool.call.result");
      const told = await attributesOf(capturing);
      const args = JSON.parse(String(told["gen_ai.tool.call.arguments"])) as { message: string };
      expect(JSON.parse(args.message)).toEqual({ city: "Lyon" });
      expect(String(told["gen_ai.tool.call.result"])).toContain("Echo:");
      // A result the redaction changed says so on its span.
      exporter.reset();
      await capturing.post("/meta_call", {
        path: "/e/echo",
        args: { message: "plain" },
      });
      expect(named("tools/call echo", SpanKind.SERVER)!.events.map((e) => e.name)).not.toContain(
        "mcp_broker.redaction",
      );
      await capturing.post("/meta_call", { path: "/s/echo_secret", args: {} });
      const secret = named("tools/call echo_secret", SpanKind.SERVER)!;
      expect(secret.events.map((e) => e.name)).toContain("mcp_broker.redaction");
      expect(String(secret.attributes["gen_ai.tool.call.result"])).not.toContain("password");
    } finally {
      await plain.close();
      await capturing.close();
    }
  });
});
