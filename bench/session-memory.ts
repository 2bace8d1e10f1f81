/**
 * What an open 2025-era MCP session costs the broker in memory: the built
 * broker in this process (run with --expose-gc), its client in a process of
 * its own (so that the client's sockets and buffers are not counted), heap
 * and RSS after a full GC at each step:
 *
 * 1. cold: N sessions opened by bare `initialize` requests in a fresh process
 *    (RSS also counts V8 sizing its young generation and heap for the first
 *    time, once per process);
 * 2. warm: those N closed (DELETE), then N new ones opened: what one more
 *    session costs a process that has run a while;
 * 3. with a stream: a standalone GET stream opened on each of the N warm
 *    sessions, and left open.
 *
 * `npm run bench` runs it for 1,000 and for 10,000 sessions; alone, after
 * `npm run build`: `BENCH_SESSIONS=1000 node --expose-gc --import tsx bench/session-memory.ts`.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { builtModule } from "./processes.js";
import { writeConfig } from "../test/helpers/broker.js";
import { INITIALIZE, postMcp } from "../test/helpers/mcp-client.js";
import { echoConfig } from "./echo-configs.js";
import { machineLine } from "./machine.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 500);
const gc = (globalThis as { gc?: () => void }).gc;

/** What the parent asks of the client process; it answers `done` when it is. */
type Step = { open: number } | { close: true } | { streams: true };

/** The client process: opens, closes and streams sessions when asked, keeping only their ids. */
function client(url: string): void {
  let ids: string[] = [];
  const headersOf = (id: string) => ({
    "mcp-session-id": id,
    "mcp-protocol-version": "2025-11-25",
  });
  const streams: Response[] = [];
  const take = async (step: Step): Promise<void> => {
    if ("open" in step) {
      for (let i = 0; i < step.open; i++) {
        const res = await postMcp(`${url}/mcp`, INITIALIZE);
        await res.text();
        const id = res.headers.get("mcp-session-id");
        if (!id) throw new Error(`no session: HTTP ${res.status}`);
        ids.push(id);
      }
    } else if ("close" in step) {
      for (const id of ids) {
        const res = await fetch(`${url}/mcp`, { method: "DELETE", headers: headersOf(id) });
        await res.text();
      }
      ids = [];
    } else {
      for (const id of ids) {
        const res = await fetch(`${url}/mcp`, {
          headers: { accept: "text/event-stream", ...headersOf(id) },
        });
        if (res.status !== 200) throw new Error(`no stream: HTTP ${res.status}`);
        streams.push(res);
      }
    }
  };
  process.on("message", (step: Step) => {
    void take(step).then(
      () => process.send!("done"),
      (err: Error) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}

function settled(): { heap: number; rss: number } {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

function ask(child: ChildProcess, step: Step): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", (code) => reject(new Error(`the client exited with ${code}`)));
    child.send(step);
  });
}

async function main(): Promise<void> {
  if (!gc) throw new Error("run with node --expose-gc");
  // The built program, as users run it (see builtBroker).
  const { serveHttp } = await builtModule<typeof import("../src/app/serve.js")>("app/serve.js");
  const running = await serveHttp({
    host: "127.0.0.1",
    port: 0,
    configFile: writeConfig({ ...echoConfig, sessions: { max: SESSIONS * 2 } }),
    log: pino({ level: "silent" }),
  });
  const url = `http://127.0.0.1:${running.port}`;
  const child = fork(fileURLToPath(import.meta.url), ["client", url], {
    execArgv: ["--import", "tsx"],
  });
  try {
    await ask(child, { open: 20 });
    const start = settled();
    await ask(child, { open: SESSIONS });
    const cold = settled();
    await ask(child, { close: true });
    const closed = settled();
    await ask(child, { open: SESSIONS });
    const warm = settled();
    await ask(child, { streams: true });
    const streaming = settled();
    const kb = (bytes: number) => (bytes / SESSIONS / 1024).toFixed(1);
    const row = (label: string, a: typeof start, b: typeof start) =>
      `| ${label} | ${kb(b.heap - a.heap)} | ${kb(b.rss - a.rss)} |`;
    console.log(
      [
        machineLine(),
        "",
        `${SESSIONS} sessions (2025-11-25), per session, after a full GC:`,
        "",
        "| step | heap KB | RSS KB |",
        "| --- | ---: | ---: |",
        row("cold: opened in a fresh process", start, cold),
        row("warm: opened after as many were opened and closed", closed, warm),
        row("a GET stream opened on each warm session (on top of the session)", warm, streaming),
      ].join("\n"),
    );
  } finally {
    child.kill();
    await running.close();
  }
}

if (process.argv[2] === "client") client(process.argv[3]!);
else
  main().catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  });
