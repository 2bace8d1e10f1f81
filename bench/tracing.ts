/**
 * What tracing costs: the same broker config run twice, once without
 * OpenTelemetry and once exporting every span and metric over OTLP/HTTP
 * (the standard OTEL_* variables) to a collector stand-in on loopback that
 * counts what it receives. Sequential POST /meta_call of server-everything's
 * `echo` and the same through an SDK client on /mcp/e, many short rounds that
 * alternate between the two brokers, medians of the rounds' p50s, and the
 * broker process's own CPU time per call over all rounds (from /proc; its backend not counted).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { echoConfig } from "./echo-configs.js";
import { cpuSeconds } from "./process-cpu.js";
import { builtBroker, start, stopChildren } from "./processes.js";
import { median, sequential } from "./stats.js";
import { machineLine } from "./machine.js";

const ROUNDS = Number(process.env.BENCH_TRACING_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_TRACING_CALLS ?? 400);

/** Accepts OTLP/HTTP exports and counts their bytes, as a collector would take them. */
async function collector(): Promise<{ port: number; received: () => number }> {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => (bytes += chunk.length));
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  return { port: (server.address() as AddressInfo).port, received: () => bytes };
}

async function main(): Promise<void> {
  const sink = await collector();
  const file = join(mkdtempSync(join(tmpdir(), "mcp-broker-bench-")), "config.json");
  writeFileSync(file, JSON.stringify(echoConfig));
  const args = [builtBroker(), "127.0.0.1:0", file, "--log-level", "info"];
  const off = await start(args);
  const on = await start(args, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_METRIC_EXPORT_INTERVAL: "5000",
    // More OTEL_* settings for the traced broker, such as a sampler: BENCH_TRACING_OTEL='{"…": "…"}'.
    ...(JSON.parse(process.env.BENCH_TRACING_OTEL ?? "{}") as Record<string, string>),
  });
  const body = JSON.stringify({ path: "/e/echo", args: { message: "hello" } });
  const rest = (port: number) => async () => {
    const res = await fetch(`http://127.0.0.1:${port}/meta_call`, { method: "POST", body });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    await res.text();
  };
  const sdk = async (port: number) => {
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp/e`)),
    );
    return async () => {
      await client.callTool({ name: "echo", arguments: { message: "hello" } });
    };
  };
  const targets = [
    { name: "REST /meta_call", off: rest(off.port), on: rest(on.port) },
    { name: "SDK client, /mcp/e", off: await sdk(off.port), on: await sdk(on.port) },
  ];
  // The broker's own CPU per call (not its backend's): steadier than latency on a shared machine.
  const brokerPid = { off: off.child.pid!, on: on.child.pid! };
  for (const t of targets) {
    await sequential(t.off, 300);
    await sequential(t.on, 300);
  }
  const lines = [
    machineLine(),
    `Tracing off vs on (OTLP/HTTP protobuf to a loopback sink, batch span processor); ${ROUNDS} alternating rounds of ${CALLS} sequential calls, medians of the rounds' p50.`,
    "",
    "| client | off p50 ms | on p50 ms | on / off | broker CPU µs/call, off | on | on − off |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const t of targets) {
    const p50 = { off: [] as number[], on: [] as number[] };
    const cpu = { off: 0, on: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const);
      for (const which of order) {
        const before = cpuSeconds(brokerPid[which]);
        p50[which].push((await sequential(t[which], CALLS)).p50);
        cpu[which] += cpuSeconds(brokerPid[which]) - before;
      }
    }
    const [o, n] = [median(p50.off), median(p50.on)];
    const [co = 0, cn = 0] = [cpu.off, cpu.on].map((seconds) => (seconds * 1e6) / (ROUNDS * CALLS));
    lines.push(
      `| ${t.name} | ${o.toFixed(3)} | ${n.toFixed(3)} | ${(n / o).toFixed(3)} | ${co.toFixed(0)} | ${cn.toFixed(0)} | ${(cn - co).toFixed(0)} |`,
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 6000));
  lines.push("", `The sink received ${(sink.received() / 1024).toFixed(0)} KiB of OTLP.`);
  console.log(lines.join("\n"));
}

main()
  .catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopChildren);
