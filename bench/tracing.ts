/**
 * What tracing costs: the same broker config run twice, once without
 * OpenTelemetry and once exporting every span and metric over OTLP/HTTP
 * (the standard OTEL_* variables) to a collector stand-in on loopback that
 * counts what it receives. Sequential POST /meta_call of server-everything's
 * `echo` and the same through an SDK client on /mcp/e, many short rounds that
 * alternate between the two brokers, medians of the rounds' p50s.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { echoConfig } from "./echo-configs.js";
import { start, stopChildren } from "./processes.js";
import { median, sequential } from "./stats.js";

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
  const args = ["--import", "tsx", "src/cli.ts", "127.0.0.1:0", file, "--log-level", "info"];
  const off = await start(args);
  const on = await start(args, {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_METRIC_EXPORT_INTERVAL: "5000",
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
  for (const t of targets) {
    await sequential(t.off, 300);
    await sequential(t.on, 300);
  }
  const lines = [
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    `Tracing off vs on (OTLP/HTTP protobuf to a loopback sink, batch span processor); ${ROUNDS} alternating rounds of ${CALLS} sequential calls, medians of the rounds' p50.`,
    "",
    "| client | off p50 ms | on p50 ms | on / off |",
    "| --- | ---: | ---: | ---: |",
  ];
  for (const t of targets) {
    const offs: number[] = [];
    const ons: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [first, second] = round % 2 === 0 ? [t.off, t.on] : [t.on, t.off];
      const a = await sequential(first, CALLS);
      const b = await sequential(second, CALLS);
      (first === t.off ? offs : ons).push(a.p50);
      (first === t.off ? ons : offs).push(b.p50);
    }
    const [o, n] = [median(offs), median(ons)];
    lines.push(`| ${t.name} | ${o.toFixed(3)} | ${n.toFixed(3)} | ${(n / o).toFixed(3)} |`);
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
