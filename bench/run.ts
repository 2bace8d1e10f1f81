/**
 * `npm run bench`: tools/call latency and throughput of server-everything's
 * `echo`, side by side in one run: direct over stdio, through the broker
 * (Streamable HTTP /mcp in flat mode, and POST /meta_call), and the floor (an
 * in-process SDK server on Streamable HTTP). Also the size of tools/list in meta
 * and flat mode for the demo config. Prints a Markdown report.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { demoConfig } from "./demo-config.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startMcpProxy, startSupergateway } from "./gateways.js";
import { broker, redisReachable, start, stopChildren } from "./processes.js";
import { childPids, descendantPids } from "./process-cpu.js";
import { rawToolCaller } from "./raw-mcp-client.js";
import { BENCH_TOKEN, echoConfig, everything, withPolicy } from "./echo-configs.js";
import { machineLine } from "./machine.js";
import {
  CLIENTS,
  measureAll,
  PER_CLIENT,
  ROUNDS,
  SEQUENTIAL,
  type Row,
  type Target,
} from "./measure.js";

const root = fileURLToPath(new URL("..", import.meta.url));

async function httpClient(port: number, path: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}${path}`)),
  );
  return client;
}

async function main(): Promise<void> {
  const args = { message: "hello" };
  const brokerProcess = await broker(echoConfig);
  const policyMemory = await broker(withPolicy("memory"));
  const redisUp = await redisReachable();
  const policyRedis = redisUp ? await broker(withPolicy("redis://127.0.0.1:6379")) : undefined;
  let idempotencyKeys = 0;
  const metaCallTarget = (
    name: string,
    port: number,
    policy: boolean,
    child: ChildProcess,
  ): Target => ({
    name,
    makeCall: async () => {
      const body = JSON.stringify({ path: "/e/echo", args });
      return async () => {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (policy) {
          headers.authorization = `Bearer ${BENCH_TOKEN}`;
          headers["idempotency-key"] = `bench-${process.pid}-${idempotencyKeys++}`;
        }
        const res = await fetch(`http://127.0.0.1:${port}/meta_call`, {
          method: "POST",
          headers,
          body,
        });
        if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
        await res.text();
      };
    },
    pids: () => [child.pid!, ...childPids(child.pid!)],
  });
  const brokerPort = brokerProcess.port;
  const floorProcess = await start(["--import", "tsx", "bench/floor-server.ts"]);
  const floorPort = floorProcess.port;
  const floorPids = () => [floorProcess.child.pid!];
  // The broker, then its backend: the broker's own cost and what the relay adds.
  const brokerPids = () => [brokerProcess.child.pid!, ...childPids(brokerProcess.child.pid!)];

  const { child: gateway, url: gatewayUrl } = await startSupergateway();
  const { child: proxy, url: proxyUrl } = await startMcpProxy();
  const withDescendants = (child: ChildProcess) => () => [
    child.pid!,
    ...descendantPids(child.pid!),
  ];

  let direct: Client | undefined;
  const rows = await measureAll([
    {
      name: "direct, stdio (one process, calls multiplexed)",
      makeCall: async () => {
        const client = (direct ??= await stdioClient());
        return () => client.callTool({ name: "echo", arguments: args });
      },
    },
    {
      name: "floor: SDK server in process, Streamable HTTP",
      makeCall: async () => {
        return rawToolCaller(`http://127.0.0.1:${floorPort}/mcp`, "echo", args);
      },
      pids: floorPids,
    },
    {
      name: "mcp-broker, Streamable HTTP /mcp (flat)",
      makeCall: async () => {
        return rawToolCaller(`http://127.0.0.1:${brokerPort}/mcp`, "e__echo", args);
      },
      pids: brokerPids,
    },
    {
      name: "mcp-broker, Streamable HTTP /mcp/e (the source as itself)",
      makeCall: async () => {
        return rawToolCaller(`http://127.0.0.1:${brokerPort}/mcp/e`, "echo", args);
      },
      pids: brokerPids,
    },
    {
      name: "supergateway --stateful, Streamable HTTP",
      makeCall: async () => {
        return rawToolCaller(gatewayUrl, "echo", args);
      },
      pids: withDescendants(gateway),
    },
    {
      name: "mcp-proxy, Streamable HTTP",
      makeCall: async () => {
        return rawToolCaller(proxyUrl, "echo", args);
      },
      pids: withDescendants(proxy),
    },
    metaCallTarget("mcp-broker, POST /meta_call", brokerPort, false, brokerProcess.child),
    metaCallTarget(
      "mcp-broker, POST /meta_call + auth, rate limit, idempotency (memory)",
      policyMemory.port,
      true,
      policyMemory.child,
    ),
    ...(policyRedis
      ? [
          metaCallTarget(
            "mcp-broker, POST /meta_call + auth, rate limit, idempotency (Redis)",
            policyRedis.port,
            true,
            policyRedis.child,
          ),
        ]
      : []),
  ]);

  const backends = childPids(brokerProcess.child.pid!).length;
  const gatewayBackends = descendantPids(gateway.pid!).filter(
    (pid) => childPids(pid).length === 0,
  ).length;
  const proxyBackends = childPids(proxy.pid!).length;
  // The demo mounts a CMS database that `npm start` writes first; so does this.
  spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/cli.ts",
      "emcp",
      "demo-db",
      "examples/demo-cms.sqlite",
      "--docs",
      "500",
    ],
    {
      cwd: root,
      stdio: "ignore",
    },
  );
  const demo = await demoConfig();
  const sizes: Record<string, number> = {};
  for (const expose of ["meta", "flat"] as const) {
    const { port } = await broker({ ...demo, expose });
    const client = await httpClient(port, "/mcp");
    sizes[expose] = JSON.stringify(await client.listTools()).length;
    await client.close();
  }

  const floor = rows[1]!;
  const fmt = (n: number) => n.toFixed(3);
  const lines = [
    machineLine(),
    `Sequential: ${SEQUENTIAL} calls after 200 warm-up, and concurrent: ${CLIENTS} clients × ${PER_CLIENT} calls each, both in ${ROUNDS} interleaved rounds, the median kept.`,
    "",
    "| path | p50 ms | p99 ms | p50 − floor ms | calls/s (16 clients) | × floor | server CPU µs/call |",
    "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.p50 - floor.p50)} | ${r.throughput.toFixed(0)} | ${(r.throughput / floor.throughput).toFixed(2)} | ${cpuText(r.cpuUs)} |`,
    ),
    "",
    `Backend processes after ${CLIENTS + 1} MCP sessions each: mcp-broker ${backends}, supergateway ${gatewayBackends}, mcp-proxy ${proxyBackends}.`,
    "",
    ...versus(rows),
    ...policyCost(rows),
    "",
    "| tools/list for examples/demo.json | bytes |",
    "| --- | ---: |",
    `| expose: meta | ${sizes.meta} |`,
    `| expose: flat | ${sizes.flat} |`,
  ];
  console.log(lines.join("\n"));
}

/** What the policy chain costs: the same call with and without auth, rate limit and idempotency. */
function policyCost(rows: Row[]): string[] {
  const off = rows.find((r) => r.name === "mcp-broker, POST /meta_call");
  if (!off) return [];
  return rows
    .filter((r) => r.name.startsWith("mcp-broker, POST /meta_call + "))
    .map(
      (r) =>
        `Policy on (${/\((\w+)\)$/.exec(r.name)?.[1]}) against off: p50 ${(r.p50 / off.p50).toFixed(2)}×, throughput ${(r.throughput / off.throughput).toFixed(2)}×.`,
    );
}

/** The broker's /mcp against the better of the two gateways, by throughput. */
function versus(rows: Row[]): string[] {
  const broker = rows.find((r) => r.name.startsWith("mcp-broker, Streamable HTTP /mcp (flat)"))!;
  const gateways = rows.filter(
    (r) => r.name.startsWith("supergateway") || r.name.startsWith("mcp-proxy"),
  );
  const best = gateways.sort((a, b) => b.throughput - a.throughput)[0];
  if (!best) return [];
  return [
    `mcp-broker /mcp against the better gateway (${best.name}): ${(broker.throughput / best.throughput).toFixed(2)}× the throughput, p99 ${broker.p99.toFixed(3)} ms against ${best.p99.toFixed(3)} ms.`,
  ];
}

/** `123` (one process) or `front 100 + backends 80` (the server, then the processes it started). */
function cpuText(us: number[]): string {
  if (us.length === 0) return "";
  if (us.length === 1) return us[0]!.toFixed(0);
  return `front ${us[0]!.toFixed(0)} + backends ${us
    .slice(1)
    .reduce((a, b) => a + b, 0)
    .toFixed(0)}`;
}

async function stdioClient(): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [everything, "stdio"],
      stderr: "ignore",
    }),
  );
  return client;
}

main()
  .catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopChildren);
