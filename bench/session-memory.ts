/**
 * What an open 2025-era MCP session costs the broker in memory: the broker in
 * this process (run with --expose-gc), N sessions opened by bare `initialize`
 * requests (the client keeps only their ids), heap and RSS after a full GC
 * before and after. `npm run bench` does not run it; `node --expose-gc
 * --import tsx bench/session-memory.ts`.
 */
import { pino } from "pino";
import { serveHttp } from "../src/app/serve.js";
import { writeConfig } from "../test/helpers/broker.js";
import { INITIALIZE, postMcp } from "../test/helpers/mcp-client.js";
import { echoConfig } from "./echo-configs.js";
import { machineLine } from "./machine.js";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 500);
const gc = (globalThis as { gc?: () => void }).gc;

function settled(): { heap: number; rss: number } {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

async function initialize(url: string): Promise<string> {
  const res = await postMcp(`${url}/mcp`, INITIALIZE);
  await res.text();
  const id = res.headers.get("mcp-session-id");
  if (!id) throw new Error(`no session: HTTP ${res.status}`);
  return id;
}

async function main(): Promise<void> {
  if (!gc) throw new Error("run with node --expose-gc");
  const running = await serveHttp({
    host: "127.0.0.1",
    port: 0,
    configFile: writeConfig({ ...echoConfig, sessions: { max: SESSIONS * 2 } }),
    log: pino({ level: "silent" }),
  });
  const url = `http://127.0.0.1:${running.port}`;
  for (let i = 0; i < 20; i++) await initialize(url);
  const before = settled();
  const ids: string[] = [];
  for (let i = 0; i < SESSIONS; i++) ids.push(await initialize(url));
  const after = settled();
  const kb = (bytes: number) => (bytes / SESSIONS / 1024).toFixed(1);
  console.log(
    `${machineLine()}\n` +
      `${SESSIONS} open sessions: heap +${kb(after.heap - before.heap)} KB and RSS +${kb(after.rss - before.rss)} KB per session (after a full GC).`,
  );
  await running.close();
}

main().catch((err: Error) => {
  console.error(err);
  process.exitCode = 1;
});
