/**
 * `npm run bench` (third part): the example component's `word_count` through
 * the broker (`/mcp/<name>`), beside the same tool as a stdio MCP server
 * behind the same broker, side by side in one run; and the cold start of a
 * component, without and with the transpile cache. Prints a Markdown report.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { pino } from "pino";
import { WasmSource } from "../src/sources/wasm/wasm-source.js";
import { broker, stopChildren } from "./processes.js";
import { concurrent, sequential } from "./stats.js";
import { machineLine } from "./machine.js";

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2000);
const CLIENTS = 16;
const PER_CLIENT = Number(process.env.BENCH_PER_CLIENT ?? 250);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const COLD_STARTS = 3;
const root = fileURLToPath(new URL("..", import.meta.url));
const TEXT = "The quick brown fox jumps over the lazy dog.\nTwice over, in fact.";

/** The example component, built with the CLI once and kept. */
function exampleComponent(): string {
  const out = join(root, "node_modules/.cache/mcp-broker-bench/text-tools.wasm");
  if (existsSync(out)) return out;
  const built = spawnSync(
    process.execPath,
    ["--import", "tsx", "src/cli.ts", "wasm", "build", "examples/wasm/router.js", "--out", out],
    { cwd: root, encoding: "utf8" },
  );
  if (built.status !== 0) throw new Error(built.stderr);
  return out;
}

async function caller(port: number, name: string): Promise<() => Promise<unknown>> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp/${name}`)),
  );
  return async () => {
    const result = await client.callTool({ name: "word_count", arguments: { text: TEXT } });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Milliseconds from nothing to a source that answers, without and with the transpile cache. */
async function coldStarts(component: string): Promise<{ uncached: number; cached: number }> {
  const log = pino({ level: "silent" });
  const uncached: number[] = [];
  const cached: number[] = [];
  for (let i = 0; i < COLD_STARTS; i++) {
    const cacheDir = mkdtempSync(join(tmpdir(), "mcp-broker-bench-wasm-"));
    for (const into of [uncached, cached]) {
      const began = performance.now();
      const source = new WasmSource(
        "bench",
        { backend: "wasm", component, cache_dir: cacheDir },
        log,
      );
      await source.start();
      into.push(performance.now() - began);
      await source.close();
    }
  }
  return { uncached: median(uncached), cached: median(cached) };
}

const component = exampleComponent();
const { port } = await broker({
  tree: [
    { path: "/wasm", source: { backend: "wasm", component } },
    { path: "/wasm2", source: { backend: "wasm", component, instances: 2 } },
    {
      path: "/stdio",
      source: {
        backend: "stdio",
        command: [process.execPath, "--import", "tsx", join(root, "bench/text-tools-server.ts")],
        // tsx is found from the repository; the config is written elsewhere.
        cwd: root,
      },
    },
  ],
});

const rows: { name: string; p50: number; p99: number; throughput: number[] }[] = [];
const pools: (() => Promise<unknown>)[][] = [];
for (const [name, label] of [
  ["wasm", "component (wasm backend), /mcp/wasm"],
  ["wasm2", "component, 2 instances, /mcp/wasm2"],
  ["stdio", "stdio MCP server (SDK), /mcp/stdio"],
] as const) {
  const one = await caller(port, name);
  await sequential(one, 200);
  const { p50, p99 } = await sequential(one, SEQUENTIAL);
  const many = await Promise.all(Array.from({ length: CLIENTS }, () => caller(port, name)));
  await concurrent(many, 20);
  pools.push(many);
  rows.push({ name: label, p50, p99, throughput: [] });
}
for (let round = 0; round < ROUNDS; round++)
  for (const [i, pool] of pools.entries())
    rows[i]!.throughput.push(await concurrent(pool, PER_CLIENT));
const starts = await coldStarts(component);

const results = rows.map((r) => ({ ...r, calls: median(r.throughput) }));
const stdio = results.find((r) => r.name.startsWith("stdio"))!;
console.log(
  `## WebAssembly component vs stdio MCP server (${new Date().toISOString().slice(0, 10)})`,
);
console.log(`\n${machineLine()}`);
console.log(
  `word_count through the broker; ${SEQUENTIAL} sequential calls, then ${CLIENTS} clients × ${PER_CLIENT} calls, median of ${ROUNDS} rounds.\n`,
);
console.log("| target | p50 ms | p99 ms | calls/s | calls/s ÷ stdio |");
console.log("|---|---|---|---|---|");
for (const r of results)
  console.log(
    `| ${r.name} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${Math.round(r.calls)} | ${(r.calls / stdio.calls).toFixed(2)}× |`,
  );
console.log(`\nCold start of the component to a source that answers (median of ${COLD_STARTS}):`);
console.log(
  `without the transpile cache ${Math.round(starts.uncached)} ms, with it ${Math.round(starts.cached)} ms (${(starts.uncached / starts.cached).toFixed(1)}× faster).`,
);
stopChildren();
