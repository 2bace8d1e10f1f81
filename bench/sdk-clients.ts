/**
 * `npm run bench`, part two: tools/call of server-everything's `echo` through
 * each gateway with the SDK clients users really connect with (1.x for
 * Streamable HTTP and HTTP+SSE sessions, 2.x for stateless 2026-07-28),
 * side by side in one run: mcp-broker (each server as itself at `/mcp/e`, and
 * flat tools at `/mcp`), mcp-hub, supergateway, mcp-proxy, a floor: the
 * least a gateway could do (bench/floor-gateway.ts), and for reference a
 * gateway of the SDK's parts as documented (bench/sdk-gateway.ts), the parts
 * the broker is built on. What each gateway's own
 * process spends per call (CPU µs from /proc) is the measure that counts on
 * 2 cores, where throughput mostly measures the clients.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { echoConfig, everything } from "./echo-configs.js";
import { CLIENTS, measureAll, PER_CLIENT, ROUNDS, SEQUENTIAL, type Row } from "./measure.js";
import { childPids, descendantPids } from "./process-cpu.js";
import { startMcpProxy, startSupergateway } from "./gateways.js";
import { broker, freePort, start, startOnPort, stopChildren } from "./processes.js";
import { flatName } from "../src/tree/flat-name.js";
import { machineLine } from "./machine.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = { message: "hello" };

/** A 1.x SDK client over `transport`, calling `tool`. */
function legacyCaller(transport: () => Transport, tool: string) {
  return async () => {
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(transport());
    return () => client.callTool({ name: tool, arguments: args });
  };
}

/** A 2.x SDK client speaking 2026-07-28 (pinned), calling `tool`. */
function modernCaller(url: string, tool: string) {
  return async () => {
    const client = new ModernClient(
      { name: "bench", version: "2" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new ModernTransport(new URL(url)));
    return () => client.callTool({ name: tool, arguments: args });
  };
}

/** One of the benchmarks' own gateways (a script in bench/) in front of a stdio server-everything. */
async function benchGateway(script: string): Promise<{ url: string; pids: () => number[] }> {
  const { child, port } = await start([
    "--import",
    "tsx",
    join(root, script),
    process.execPath,
    everything,
    "stdio",
  ]);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pids: () => [child.pid!, ...childPids(child.pid!)],
  };
}

async function main(): Promise<void> {
  const brokerProcess = await broker(echoConfig);
  const brokerUrl = `http://127.0.0.1:${brokerProcess.port}`;
  const brokerPids = () => [brokerProcess.child.pid!, ...childPids(brokerProcess.child.pid!)];

  const hubPort = await freePort();
  const hubConfig = join(mkdtempSync(join(tmpdir(), "mcp-hub-bench-")), "config.json");
  writeFileSync(
    hubConfig,
    JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } },
    }),
  );
  const hub = await startOnPort(
    [
      join(root, "node_modules/mcp-hub/dist/cli.js"),
      "--port",
      String(hubPort),
      "--config",
      hubConfig,
    ],
    hubPort,
  );
  // mcp-hub answers HTTP before its backend is up; its tools appear once it is.
  await waitForTool(`http://127.0.0.1:${hubPort}/mcp`, "everything__echo");

  const floor = await benchGateway("bench/floor-gateway.ts");
  const sdkGateway = await benchGateway("bench/sdk-gateway.ts");
  const flat = flatName("/e/echo");

  const gateway = await startSupergateway();
  const proxy = await startMcpProxy();
  const tree = (pid: number) => () => [pid, ...descendantPids(pid)];
  const http = (url: string) => () => new StreamableHTTPClientTransport(new URL(url));
  const sse = (url: string) => () => new SSEClientTransport(new URL(url));

  const rows = await measureAll([
    {
      name: "floor: a minimal gateway, SDK 1.x client (plain JSON)",
      makeCall: legacyCaller(http(floor.url), "echo"),
      pids: floor.pids,
    },
    {
      name: "reference: the SDK's server and client as documented, SDK 1.x client (2025-11-25 session)",
      makeCall: legacyCaller(http(sdkGateway.url), "echo"),
      pids: sdkGateway.pids,
    },
    {
      name: "mcp-broker /mcp/e, SDK 1.x client (2025-11-25 session)",
      makeCall: legacyCaller(http(`${brokerUrl}/mcp/e`), "echo"),
      pids: brokerPids,
    },
    {
      name: "mcp-broker /mcp/e, SDK 2.x client (2026-07-28, stateless)",
      makeCall: modernCaller(`${brokerUrl}/mcp/e`, "echo"),
      pids: brokerPids,
    },
    {
      name: "mcp-broker /mcp (flat), SDK 1.x client (2025-11-25 session)",
      makeCall: legacyCaller(http(`${brokerUrl}/mcp`), flat),
      pids: brokerPids,
    },
    {
      name: "mcp-broker /mcp (flat), SDK 2.x client (2026-07-28, stateless)",
      makeCall: modernCaller(`${brokerUrl}/mcp`, flat),
      pids: brokerPids,
    },
    {
      name: "mcp-broker /sse/e, SDK 1.x client (HTTP+SSE)",
      makeCall: legacyCaller(sse(`${brokerUrl}/sse/e`), "echo"),
      pids: brokerPids,
    },
    {
      name: "mcp-hub, SDK 1.x client (HTTP+SSE)",
      makeCall: legacyCaller(sse(`http://127.0.0.1:${hubPort}/mcp`), "everything__echo"),
      pids: tree(hub.pid!),
    },
    {
      name: "supergateway --stateful, SDK 1.x client (Streamable HTTP)",
      makeCall: legacyCaller(http(gateway.url), "echo"),
      pids: tree(gateway.child.pid!),
    },
    {
      name: "mcp-proxy, SDK 1.x client (Streamable HTTP)",
      makeCall: legacyCaller(http(proxy.url), "echo"),
      pids: tree(proxy.child.pid!),
    },
  ]);

  const fmt = (n: number) => n.toFixed(3);
  const [floorRow, sdkGatewayRow] = rows as [Row, Row];
  const peers = rows.filter(
    (r) => !r.name.startsWith("mcp-broker") && r !== floorRow && r !== sdkGatewayRow,
  );
  const best = [...peers].sort((a, b) => b.throughput - a.throughput)[0]!;
  const leanest = [...peers].sort((a, b) => a.cpuUs[0]! - b.cpuUs[0]!)[0]!;
  const ours = rows.filter((r) => r.name.startsWith("mcp-broker"));
  const [legacy, modern] = ours as [Row, Row];
  console.log(
    [
      machineLine(),
      `SDK clients: ${SEQUENTIAL} sequential calls and ${CLIENTS} clients × ${PER_CLIENT} calls, in ${ROUNDS} interleaved rounds, the median kept.`,
      "",
      "| path | p50 ms | p99 ms | calls/s (16 clients) | × best peer | server CPU µs/call | front CPU × leanest peer | × floor |",
      "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
      ...rows.map(
        (r) =>
          `| ${r.name} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.throughput.toFixed(0)} | ${(r.throughput / best.throughput).toFixed(2)} | ${cpu(r)} | ${(r.cpuUs[0]! / leanest.cpuUs[0]!).toFixed(2)} | ${(r.cpuUs[0]! / floorRow.cpuUs[0]!).toFixed(2)} |`,
      ),
      "",
      `The leanest peer by front CPU: ${leanest.name}, ${leanest.cpuUs[0]!.toFixed(0)} µs/call; the floor ${floorRow.cpuUs[0]!.toFixed(0)} µs/call; the SDK's parts as documented ${sdkGatewayRow.cpuUs[0]!.toFixed(0)} µs/call.`,
      ...ours.map(
        (r) =>
          `${r.name}: front CPU ${(r.cpuUs[0]! / sdkGatewayRow.cpuUs[0]!).toFixed(2)}× that of the SDK's parts as documented.`,
      ),
      ...ours.map(
        (r) =>
          `${r.name}: ${(r.throughput / best.throughput).toFixed(2)}× the best peer's throughput (${best.name}), p99 ${fmt(r.p99)} ms against ${fmt(best.p99)} ms.`,
      ),
      `2026-07-28 stateless against a 2025-11-25 session on the same endpoint: ${(modern.throughput / legacy.throughput).toFixed(2)}× the throughput, p50 ${fmt(modern.p50)} ms against ${fmt(legacy.p50)} ms.`,
    ].join("\n"),
  );
}

/** Polls an HTTP+SSE endpoint until its tools/list has `tool`. */
async function waitForTool(url: string, tool: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const client = new Client({ name: "bench", version: "1" });
    try {
      await client.connect(new SSEClientTransport(new URL(url)));
      const { tools } = await client.listTools();
      if (tools.some((t) => t.name === tool)) return;
    } catch {
      // not up yet
    } finally {
      await client.close().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never listed ${tool}`);
}

function cpu(r: Row): string {
  if (r.cpuUs.length === 0) return "";
  const [front, ...rest] = r.cpuUs;
  return `front ${front!.toFixed(0)} + backends ${rest.reduce((a, b) => a + b, 0).toFixed(0)}`;
}

main()
  .catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopChildren);
