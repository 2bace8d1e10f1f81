/**
 * How long `mcp-broker demo` takes from the process's start to serving the
 * demo's tree: the time from spawn to the first `meta_tree` of "/" that
 * lists every top-level node of examples/demo.json (its sources may still be
 * starting: a node is listed as soon as its mount is known), and to the
 * first that finds every source up (`/healthz`). Five starts each of the
 * built package (`node dist/main.js`, what an installed `mcp-broker` runs)
 * and of `npm start`'s way (`node --import tsx src/cli.ts`), alternating;
 * the floor is Node.js itself starting and answering HTTP (`node -e`), in
 * the same run. Also the time to answer HTTP at all (`/healthz`, whatever
 * its status).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { machineLine } from "./machine.js";
import { freePort } from "./processes.js";
import { median } from "./stats.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const TOP = ["cms", "demo", "files", "memory"];

async function until(check: () => Promise<boolean>): Promise<void> {
  for (;;) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Milliseconds from spawn to answering HTTP, to serving the tree, and to every source up. */
async function startOnce(args: string[]): Promise<{ http: number; tree: number; up: number }> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...args, `127.0.0.1:${port}`], {
    cwd: root,
    stdio: "ignore",
    env: { ...process.env, MCP_BROKER_LOG_FORMAT: "json" },
  });
  const url = `http://127.0.0.1:${port}`;
  await until(async () => (await fetch(`${url}/healthz`)).status > 0);
  const http = performance.now() - started;
  await until(async () => {
    const res = await fetch(`${url}/meta_tree`, { method: "POST", body: '{"path":"/"}' });
    const body = (await res.json()) as { children?: { name: string }[] };
    const names = (body.children ?? []).map((c) => c.name);
    return TOP.every((name) => names.includes(name));
  });
  const tree = performance.now() - started;
  await until(async () => (await fetch(`${url}/healthz`)).status === 200);
  const up = performance.now() - started;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
  return { http, tree, up };
}

async function floorOnce(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ["-e", `require("node:http").createServer((q, s) => s.end("ok")).listen(${port}, "127.0.0.1")`],
    { stdio: "ignore" },
  );
  await until(async () => (await fetch(`http://127.0.0.1:${port}/`)).ok);
  const ms = performance.now() - started;
  child.kill();
  return ms;
}

const built = existsSync(`${root}/dist/main.js`);
// Another build of the program, to compare a change with what it changes in one run.
const other = process.env.BENCH_OTHER_BUILD;
const ways: Record<string, string[]> = {
  ...(built ? { "node dist/main.js demo (mcp-broker)": ["dist/main.js", "demo"] } : {}),
  ...(other ? { [`node ${other} demo (BENCH_OTHER_BUILD)`]: [other, "demo"] } : {}),
  "node --import tsx src/cli.ts demo (npm start)": ["--import", "tsx", "src/cli.ts", "demo"],
};
const runs = Object.fromEntries(
  Object.keys(ways).map((k) => [k, [] as { http: number; tree: number; up: number }[]]),
);
const floor: number[] = [];
for (let i = 0; i < 5; i++) {
  floor.push(await floorOnce());
  for (const [name, args] of Object.entries(ways)) runs[name]!.push(await startOnce(args));
}
console.log(machineLine());
console.log(
  [
    "| start | answers HTTP, ms (median of 5) | tree served, ms | every source up, ms |",
    "| --- | ---: | ---: | ---: |",
    ...Object.entries(runs).map(
      ([name, r]) =>
        `| ${name} | ${median(r.map((x) => x.http)).toFixed(0)} | ${median(r.map((x) => x.tree)).toFixed(0)} | ${median(r.map((x) => x.up)).toFixed(0)} |`,
    ),
    `| floor: node -e, an HTTP server answering | ${median(floor).toFixed(0)} | | |`,
  ].join("\n"),
);
if (!built)
  console.log("dist/ is not built (npm run build): the installed package's start is not measured.");
