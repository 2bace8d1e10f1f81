/** The stdio → Streamable HTTP gateways from npm the benchmarks compare with, in front of server-everything. */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { everything } from "./echo-configs.js";
import { freePort, startOnPort } from "./processes.js";

const root = fileURLToPath(new URL("..", import.meta.url));

export interface Gateway {
  readonly child: ChildProcess;
  readonly url: string;
}

/** supergateway in stateful mode, at `/mcp`. */
export async function startSupergateway(): Promise<Gateway> {
  const port = await freePort();
  const child = await startOnPort(
    [
      join(root, "node_modules/supergateway/dist/index.js"),
      "--stdio",
      `${process.execPath} ${everything} stdio`,
      "--outputTransport",
      "streamableHttp",
      "--stateful",
      "--port",
      String(port),
      "--logLevel",
      "none",
    ],
    port,
  );
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

/** mcp-proxy, at `/mcp`. */
export async function startMcpProxy(): Promise<Gateway> {
  const port = await freePort();
  const child = await startOnPort(
    [
      join(root, "node_modules/mcp-proxy/dist/bin/mcp-proxy.mjs"),
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--",
      process.execPath,
      everything,
      "stdio",
    ],
    port,
  );
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}
