/**
 * `npm run soak`: three instances behind HAProxy sharing Redis, under
 * clients of both revisions that come and go for BENCH_SOAK_S seconds
 * (default 300), some calls with idempotency keys: every 15 s, each instance's resident memory and open file
 * descriptors. Flat lines mean no session, stream, timer or socket is kept
 * after its client left. Needs haproxy and Redis, like bench/horizontal.ts.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startHaproxy } from "../test/helpers/haproxy.js";
import { echoConfig } from "./echo-configs.js";
import { residentKb } from "./process-cpu.js";
import { broker, redisReachable, stopChildren } from "./processes.js";

const SECONDS = Number(process.env.BENCH_SOAK_S ?? 300);
const SAMPLE_MS = 15_000;
const haproxy = spawnSync("sh", ["-c", "command -v haproxy"], { encoding: "utf8" }).stdout.trim();

const rssMb = (pid: number) => residentKb(pid) / 1024;
const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/**
 * One client's life: connect, a few calls (every other one with an idempotency
 * key, so that claims and stored results come and go too), gone (half of them
 * without saying goodbye).
 */
async function visit(url: string, modern: boolean, n: number): Promise<void> {
  const call = (i: number) => ({
    name: "e__echo",
    arguments: { message: `soak ${n}` },
    ...(i % 2 === 1 ? { _meta: { idempotencyKey: `soak-${process.pid}-${n}-${i}` } } : {}),
  });
  if (modern) {
    const client = new ModernClient(
      { name: "soak", version: "2" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new ModernTransport(new URL(`${url}/mcp`)));
    for (let i = 0; i < 5; i++) await client.callTool(call(i));
    await client.close();
    return;
  }
  const client = new Client({ name: "soak", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`));
  await client.connect(transport);
  for (let i = 0; i < 5; i++) await client.callTool(call(i));
  if (n % 2 === 0) await transport.terminateSession();
  await client.close();
}

async function main(): Promise<void> {
  if (!haproxy) return console.log("soak: skipped, haproxy is not installed");
  if (!(await redisReachable())) return console.log("soak: skipped, Redis is not reachable");
  const instances = await Promise.all(
    [0, 1, 2].map(() =>
      broker({ ...echoConfig, state: "redis://127.0.0.1:6379", sessions: { idle_timeout_s: 30 } }),
    ),
  );
  const balancer = await startHaproxy(
    haproxy,
    instances.map((i) => `http://127.0.0.1:${i.port}`),
  );
  const samples: { at: number; rss: number[]; fds: number[] }[] = [];
  const sample = () =>
    samples.push({
      at: Math.round((Date.now() - started) / 1000),
      rss: instances.map((i) => rssMb(i.child.pid!)),
      fds: instances.map((i) => fds(i.child.pid!)),
    });
  const started = Date.now();
  sample();
  const sampler = setInterval(sample, SAMPLE_MS);
  let visits = 0;
  let failures = 0;
  const workers = Array.from({ length: 8 }, async (_, w) => {
    while (Date.now() - started < SECONDS * 1000) {
      const n = visits++;
      await visit(balancer.url, w % 4 === 3, n).catch(() => (failures += 1));
    }
  });
  await Promise.all(workers);
  clearInterval(sampler);
  sample();
  console.log(
    `\n### Soak: ${SECONDS} s, ${visits} client visits (5 calls each), ${failures} failed\n`,
  );
  console.log("| s | RSS MB (each instance) | open fds (each instance) |\n| ---: | --- | --- |");
  for (const s of samples) {
    console.log(
      `| ${s.at} | ${s.rss.map((r) => r.toFixed(0)).join(" / ")} | ${s.fds.join(" / ")} |`,
    );
  }
  await balancer.stop();
}

main()
  .catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopChildren);
