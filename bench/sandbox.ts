/**
 * What a bubblewrap sandbox costs a stdio MCP server, side by side in one
 * run, against the same server unsandboxed: the start (from the broker's
 * start to the source's first tools/list answered, in process, five times
 * each, alternating) and a call (server-everything's `echo` over REST
 * `meta_call`, 2000 sequential calls after 200 warm-up, per target, in
 * alternating rounds). A call crosses the sandbox's boundary only as bytes
 * on stdin and stdout, so its cost should be within noise; the start pays for
 * prlimit, bubblewrap's namespaces and mounts, and the cgroups.
 */
import { pino } from "pino";
import { Broker } from "../src/broker/broker.js";
import { ConfigSchema } from "../src/sources/kinds.js";
import { everythingCommand } from "../test/helpers/broker.js";
import { machineLine } from "./machine.js";
import { broker as spawnBrokerProcess, stopChildren } from "./processes.js";
import { median, percentile } from "./stats.js";

const log = pino({ level: "silent" });
const source = (sandbox: boolean) => ({
  backend: "stdio",
  command: everythingCommand(),
  tool_filter: ["echo"],
  ...(sandbox && { sandbox: true }),
});

async function startMs(sandbox: boolean): Promise<number> {
  const config = ConfigSchema.parse({
    registry: { predefined: false },
    pinning: "off",
    tree: [{ path: "/e", source: source(sandbox) }],
  });
  const started = performance.now();
  const b = await Broker.start(config, { log });
  const ms = performance.now() - started;
  await b.close();
  return ms;
}

const starts = { plain: [] as number[], sandboxed: [] as number[] };
for (let i = 0; i < 5; i++) {
  starts.plain.push(await startMs(false));
  starts.sandboxed.push(await startMs(true));
}

const { port } = await spawnBrokerProcess({
  registry: { predefined: false },
  pinning: "off",
  tree: [
    { path: "/plain", source: source(false) },
    { path: "/boxed", source: source(true) },
  ],
});
const url = `http://127.0.0.1:${port}/meta_call`;
async function calls(path: string, n: number): Promise<number[]> {
  const body = JSON.stringify({ path, args: { message: "hello" } });
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await fetch(url, { method: "POST", body });
    await res.text();
    ms.push(performance.now() - t);
  }
  return ms;
}
const latency = { plain: [] as number[], sandboxed: [] as number[] };
for (let round = 0; round < 5; round++) {
  await calls("/plain/echo", 40);
  await calls("/boxed/echo", 40);
  latency.plain.push(...(await calls("/plain/echo", 400)));
  latency.sandboxed.push(...(await calls("/boxed/echo", 400)));
}
stopChildren();

const row = (name: keyof typeof starts) => {
  const sorted = [...latency[name]].sort((a, b) => a - b);
  return `| ${name} | ${median(starts[name]).toFixed(0)} | ${percentile(sorted, 50).toFixed(2)} | ${percentile(sorted, 99).toFixed(2)} |`;
};
console.log(machineLine());
console.log(
  [
    "| server-everything | start ms (median of 5) | call p50 ms | call p99 ms |",
    "| --- | ---: | ---: | ---: |",
    row("plain"),
    row("sandboxed"),
    `| sandboxed − plain | ${(median(starts.sandboxed) - median(starts.plain)).toFixed(0)} | | |`,
  ].join("\n"),
);
