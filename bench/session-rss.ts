/**
 * What idle 2025-era sessions cost in resident memory as an operator sees
 * it: the built broker in a process of its own, as `mcp-broker` runs it, N
 * sessions opened by bare `initialize` requests (eight at a time, or
 * BENCH_AT_ONCE), and the process's RSS from /proc before and after, with no
 * GC forced; a fresh process for each count. Run with V8's default young
 * generation and with it capped by `--max-semi-space-size`, in one run.
 *
 * `npm run bench` runs it; alone, after `npm run build`:
 * `BENCH_SESSIONS=1000,10000 tsx bench/session-rss.ts`.
 */
import { writeConfig } from "../test/helpers/broker.js";
import { INITIALIZE, postMcp } from "../test/helpers/mcp-client.js";
import { echoConfig } from "./echo-configs.js";
import { machineLine } from "./machine.js";
import { residentKb } from "./process-cpu.js";
import { builtBroker, start, stopChildren } from "./processes.js";

const COUNTS = (process.env.BENCH_SESSIONS ?? "1000,10000").split(",").map(Number);
const SETTINGS: [label: string, nodeFlags: string[]][] = [
  ["V8's default young generation", []],
  ["--max-semi-space-size=16", ["--max-semi-space-size=16"]],
  ["--max-semi-space-size=8", ["--max-semi-space-size=8"]],
];
const AT_ONCE = Number(process.env.BENCH_AT_ONCE ?? 8);

async function openSessions(url: string, count: number): Promise<void> {
  let left = count;
  const opener = async () => {
    while (left-- > 0) {
      const res = await postMcp(url, INITIALIZE);
      await res.text();
      if (!res.headers.get("mcp-session-id")) throw new Error(`no session: HTTP ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, opener));
}

/** RSS per idle session, in KB, of a fresh broker started with `nodeFlags`. */
async function perSession(nodeFlags: string[], count: number): Promise<number> {
  const configFile = writeConfig({ ...echoConfig, sessions: { max: count * 2 } });
  const { child, port } = await start([
    ...nodeFlags,
    builtBroker(),
    "127.0.0.1:0",
    configFile,
    "--log-level",
    "info",
  ]);
  try {
    const url = `http://127.0.0.1:${port}/mcp`;
    // The first requests load and compile what serving a session needs: not a session's cost.
    await openSessions(url, 20);
    const before = residentKb(child.pid!);
    await openSessions(url, count);
    return (residentKb(child.pid!) - before) / count;
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}

async function main(): Promise<void> {
  const rows: string[] = [];
  for (const [label, flags] of SETTINGS) {
    const cells: string[] = [];
    for (const count of COUNTS) cells.push((await perSession(flags, count)).toFixed(1));
    rows.push(`| ${label} | ${cells.join(" | ")} |`);
  }
  console.log(
    [
      machineLine(),
      "",
      "RSS per idle 2025-11-25 session, KB, the built broker in a fresh process (from /proc):",
      "",
      `| young generation | ${COUNTS.map((n) => `${n.toLocaleString("en")} sessions`).join(" | ")} |`,
      `| --- | ${COUNTS.map(() => "---:").join(" | ")} |`,
      ...rows,
    ].join("\n"),
  );
}

main()
  .catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopChildren);
