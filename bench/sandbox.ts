/**
 * What a bubblewrap sandbox costs a stdio MCP server, side by side in one
 * run, against the same server unsandboxed: the start (from the broker's
 * start to the source's first tools/list answered, in process, five times
 * each, alternating) and a call (server-everything's `echo` over REST
 * `meta_call`, 2000 sequential calls after 200 warm-up, per target, in
 * alternating rounds). A call crosses the sandbox's boundary only as bytes
 * on stdin and stdout, so its cost should be within noise; the start pays for
 * prlimit, bubblewrap's namespaces and mounts, and the cgroups. A `command`
 * source pays that start on every call, since each run is sandboxed on its
 * own: `/bin/echo {}` as a tool, 200 sequential calls per target in
 * alternating rounds, plain and sandboxed, beside two floors measured in
 * the same run: spawning `/bin/echo` from Node, and spawning it in
 * bubblewrap with the same mounts and namespaces (no broker, no cgroups,
 * no prlimit).
 */
import { spawnSync } from "node:child_process";
import { pino } from "pino";
import { whyNoSandbox } from "../src/app/host-sandbox.js";
import { bwrapCommand } from "../src/isolation/sandbox/bwrap-command.js";
import { sandboxPlanOf } from "../src/isolation/sandbox/sandbox-plan.js";
import { Broker } from "../src/broker/broker.js";
import { ConfigSchema } from "../src/sources/kinds.js";
import { everythingCommand } from "../test/helpers/broker.js";
import { machineLine } from "./machine.js";
import { broker as spawnBrokerProcess, stopChildren } from "./processes.js";
import { median, percentile } from "./stats.js";

const noSandbox = await whyNoSandbox();
if (noSandbox !== undefined) {
  console.log(`\nA stdio server in a bubblewrap sandbox: skipped, ${noSandbox}.`);
  process.exit(0);
}

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

const command = (sandbox: boolean) => ({
  backend: "command",
  tools: [{ name: "echo", argv: ["/bin/echo", "{}"] }],
  ...(sandbox && { sandbox: true }),
});
const { port } = await spawnBrokerProcess({
  registry: { predefined: false },
  pinning: "off",
  tree: [
    { path: "/plain", source: source(false) },
    { path: "/boxed", source: source(true) },
    { path: "/cmd-plain", source: command(false) },
    { path: "/cmd-boxed", source: command(true) },
  ],
});
const url = `http://127.0.0.1:${port}/meta_call`;
async function calls(path: string, n: number): Promise<number[]> {
  // server-everything's echo takes a message; the command takes nothing.
  const args = path.startsWith("/cmd") ? {} : { message: "hello" };
  const body = JSON.stringify({ path, args });
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
const runs = { plain: [] as number[], sandboxed: [] as number[] };
await calls("/cmd-plain/echo", 10);
await calls("/cmd-boxed/echo", 10);
for (let round = 0; round < 5; round++) {
  runs.plain.push(...(await calls("/cmd-plain/echo", 40)));
  runs.sandboxed.push(...(await calls("/cmd-boxed/echo", 40)));
}
stopChildren();
const spawnMs = (command: string, args: string[], env: NodeJS.ProcessEnv): number[] =>
  Array.from({ length: 100 }, () => {
    const t = performance.now();
    spawnSync(command, args, { env, stdio: "ignore" });
    return performance.now() - t;
  });
const bare = bwrapCommand("bwrap", sandboxPlanOf(true)!, {
  command: "/bin/echo",
  args: ["{}"],
  env: { PATH: "/usr/bin:/bin" },
  cwd: process.cwd(),
});
const floors = {
  spawn: spawnMs("/bin/echo", ["{}"], {}),
  bubblewrap: spawnMs(bare.command, bare.args, bare.env),
};

/** The p50 and p99 of samples in ms, as two table cells. */
function p50p99(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  return `${percentile(sorted, 50).toFixed(2)} | ${percentile(sorted, 99).toFixed(2)}`;
}

const row = (name: keyof typeof starts) =>
  `| ${name} | ${median(starts[name]).toFixed(0)} | ${p50p99(latency[name])} |`;
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
console.log(
  [
    "",
    "| command `/bin/echo {}` | call p50 ms | call p99 ms |",
    "| --- | ---: | ---: |",
    `| plain | ${p50p99(runs.plain)} |`,
    `| sandboxed | ${p50p99(runs.sandboxed)} |`,
    ...Object.entries(floors).map(([name, ms]) => `| floor: ${name} alone | ${p50p99(ms)} |`),
  ].join("\n"),
);
