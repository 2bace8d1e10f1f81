/**
 * What each part of tracing costs, measured where machine drift cannot hide
 * a few percent: one broker in this process, its OpenTelemetry providers
 * switched between rounds, every round calling `POST /meta_call` of
 * server-everything's `echo` once per set-up in turn (order reversed every
 * other round), and each set-up's p50 divided by the untraced one's of the
 * same round; the median of those ratios is reported. The client runs in
 * this process too, so CPU per call includes it: compare the differences.
 * Set-ups: no SDK; spans that no sampler keeps (the instrumentation's own
 * work); spans kept but given to no processor; spans batched to an exporter
 * that drops them; the whole of it (batched, OTLP/HTTP protobuf to a loopback
 * sink, and the duration metric); and two floors, what any instrumentation
 * with two spans and the metric costs at least: the broker untraced, and the
 * client making two spans and one record around each call, on the same
 * thread, bare (no attributes, no context, no propagation) or as the MCP
 * conventions have them.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  context,
  metrics,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NoopSpanProcessor,
  TracerProvider,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace";
import { pino } from "pino";
import {
  BACKEND_SOURCE,
  BROKER_PATH,
  GEN_AI_OPERATION,
  GEN_AI_TOOL,
  MCP_METHOD,
} from "../src/telemetry/mcp-attributes.js";
import { builtModule } from "./processes.js";
import { echoConfig } from "./echo-configs.js";
import { machineLine } from "./machine.js";
import { median, sequential } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_TRACING_ROUNDS ?? 40);
const CALLS = Number(process.env.BENCH_TRACING_CALLS ?? 300);

interface SetUp {
  readonly name: string;
  readonly traces?: { sampler: Sampler; processor: SpanProcessor };
  readonly metrics?: boolean;
  /**
   * A floor: the broker untraced, and the client around each call doing the
   * least two spans and the metric can cost (started, ended, batched to
   * OTLP, one record): `bare`, with no attributes, context or propagation;
   * `conventions`, with what the MCP conventions ask of them (the
   * attributes the broker sets, the CLIENT span the SERVER span's child,
   * its `traceparent` injected into a carrier).
   */
  readonly floor?: "bare" | "conventions";
}

async function loopbackSink(): Promise<string> {
  const sink = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  sink.unref();
  return `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
}

async function main(): Promise<void> {
  const sink = await loopbackSink();
  const file = join(mkdtempSync(join(tmpdir(), "mcp-broker-bench-")), "config.json");
  writeFileSync(file, JSON.stringify(echoConfig));
  // The built program, as users run it (see builtBroker).
  const { serveHttp } = await builtModule<typeof import("../src/app/serve.js")>("app/serve.js");
  const server = await serveHttp({
    host: "127.0.0.1",
    port: 0,
    configFile: file,
    log: pino({ level: "silent" }),
  });

  // One tracer provider whose sampler and processor are switched: the broker's tracer,
  // taken once, keeps delegating to it. "No SDK" takes the global delegate away.
  let sampler: Sampler = new AlwaysOnSampler();
  let processor: SpanProcessor = new NoopSpanProcessor();
  const provider = new TracerProvider({
    sampler: { shouldSample: (...args) => sampler.shouldSample(...args), toString: () => "set-up" },
    spanProcessors: [
      {
        onStart: (span, parent) => processor.onStart(span, parent),
        onEnd: (span) => processor.onEnd(span),
        forceFlush: () => processor.forceFlush(),
        shutdown: () => processor.shutdown(),
      },
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  const proxy = trace.getTracerProvider() as ProxyTracerProvider;
  const noTracing = new ProxyTracerProvider().getDelegate();
  const meters = new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: `${sink}/v1/metrics` }),
        exportIntervalMillis: 5000,
      }),
    ],
  });
  const toOtlp = {
    sampler: new AlwaysOnSampler(),
    processor: new BatchSpanProcessor({
      exporter: new OTLPTraceExporter({ url: `${sink}/v1/traces` }),
    }),
  };
  const dropping: SpanExporter = {
    export: (_spans, done) => done({ code: 0 }),
    shutdown: async () => undefined,
  };
  const setUps: SetUp[] = [
    { name: "no SDK" },
    {
      name: "spans not sampled",
      traces: { sampler: new AlwaysOffSampler(), processor: new NoopSpanProcessor() },
    },
    {
      name: "spans kept, no processor",
      traces: { sampler: new AlwaysOnSampler(), processor: new NoopSpanProcessor() },
    },
    {
      name: "spans batched, dropped",
      traces: {
        sampler: new AlwaysOnSampler(),
        processor: new BatchSpanProcessor({ exporter: dropping }),
      },
    },
    {
      name: "spans batched to OTLP, and the metric",
      traces: toOtlp,
      metrics: true,
    },
    { name: "floor: two bare spans to OTLP, and the metric", traces: toOtlp, floor: "bare" },
    {
      name: "floor: two spans as the conventions have them, to OTLP, and the metric",
      traces: toOtlp,
      floor: "conventions",
    },
  ];
  const use = (setUp: SetUp) => {
    proxy.setDelegate(setUp.traces && !setUp.floor ? provider : noTracing);
    if (setUp.traces) ({ sampler, processor } = setUp.traces);
    metrics.disable();
    if (setUp.metrics) metrics.setGlobalMeterProvider(meters);
  };
  // The floor's own tracer and histogram, taken from the providers, not the globals.
  const bareTracer = provider.getTracer("floor");
  const bareDuration = meters.getMeter("floor").createHistogram("mcp.server.operation.duration");
  const bareAttributes = { [MCP_METHOD]: "tools/call" };

  const body = JSON.stringify({ path: "/e/echo", args: { message: "hello" } });
  const call = async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/meta_call`, { method: "POST", body });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    await res.text();
  };
  const bareCall = async () => {
    const server = bareTracer.startSpan("tools/call echo");
    const client = bareTracer.startSpan("tools/call echo");
    const started = performance.now();
    await call();
    client.end();
    server.end();
    bareDuration.record((performance.now() - started) / 1000, bareAttributes);
  };
  // The attributes the broker gives each span and the metric of this call (telemetry/).
  const named = {
    [MCP_METHOD]: "tools/call",
    [GEN_AI_TOOL]: "echo",
    [GEN_AI_OPERATION]: "execute_tool",
  };
  const serverAttributes = { ...named, [BROKER_PATH]: "/e/echo" };
  const clientAttributes = { ...named, [BACKEND_SOURCE]: "/e" };
  const metricAttributes = { [MCP_METHOD]: "tools/call", [GEN_AI_TOOL]: "echo" };
  const conventionsCall = async () => {
    const parent = context.active();
    const server = bareTracer.startSpan(
      "tools/call echo",
      { kind: SpanKind.SERVER, attributes: serverAttributes },
      parent,
    );
    const inServer = trace.setSpan(parent, server);
    const client = bareTracer.startSpan(
      "tools/call echo",
      { kind: SpanKind.CLIENT, attributes: clientAttributes },
      inServer,
    );
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(inServer, client), carrier);
    const started = performance.now();
    await context.with(trace.setSpan(inServer, client), call);
    client.end();
    server.end();
    bareDuration.record((performance.now() - started) / 1000, metricAttributes);
  };
  const callOf = (setUp: SetUp) =>
    setUp.floor === "bare" ? bareCall : setUp.floor === "conventions" ? conventionsCall : call;
  for (const setUp of setUps) {
    use(setUp);
    await sequential(callOf(setUp), 500);
  }
  const p50 = setUps.map(() => [] as number[]);
  const cpu = setUps.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    const order = setUps.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      use(setUps[i]!);
      await sequential(callOf(setUps[i]!), 50);
      const before = process.cpuUsage();
      p50[i]!.push((await sequential(callOf(setUps[i]!), CALLS)).p50);
      const used = process.cpuUsage(before);
      cpu[i]!.push((used.user + used.system) / CALLS);
    }
  }
  const lines = [
    machineLine(),
    `Tracing by part, one broker in process, set-ups switched every ${CALLS} sequential calls; ${ROUNDS} rounds, medians of each round's ratio to "no SDK".`,
    "",
    "| set-up | p50 ms | p50 / no SDK | CPU µs/call (client included), over no SDK |",
    "| --- | ---: | ---: | ---: |",
  ];
  setUps.forEach((setUp, i) => {
    const ratio = median(p50[i]!.map((v, round) => v / p50[0]![round]!));
    const extra = median(cpu[i]!.map((v, round) => v - cpu[0]![round]!));
    lines.push(
      `| ${setUp.name} | ${median(p50[i]!).toFixed(3)} | ${ratio.toFixed(3)} | ${extra >= 0 ? "+" : ""}${extra.toFixed(0)} |`,
    );
  });
  console.log(lines.join("\n"));
  await server.close();
  await meters.shutdown();
}

main().catch((err: Error) => {
  console.error(err);
  process.exitCode = 1;
});
