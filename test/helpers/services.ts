import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { connect, createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Whether something accepts TCP connections at 127.0.0.1:port. */
export function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.setTimeout(1000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** A port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const REDIS_URL = "redis://127.0.0.1:6379";

/**
 * Whether the machine's Redis can be used. In CI it must be: a missing Redis
 * fails the run. Elsewhere a test without it is skipped, saying why.
 */
export async function redisAvailable(): Promise<boolean> {
  if (await reachable(6379)) return true;
  if (process.env.CI === "true") throw new Error("CI=true but no Redis answers at 127.0.0.1:6379");
  console.warn("skipped: no Redis at 127.0.0.1:6379 (start it, or run in CI where it is required)");
  return false;
}

/**
 * A Redis of the test's own on a free port, and on a Unix socket with
 * `socket`, which the test may kill or pause without touching the
 * machine's; undefined, saying why, where none can start.
 */
export async function ownRedis(
  options: { socket?: boolean } = {},
): Promise<{ port: number; socket?: string; process: ChildProcess } | undefined> {
  const port = await freePort();
  const socket = options.socket
    ? join(mkdtempSync(join(tmpdir(), "mcp-broker-redis-")), "redis.sock")
    : undefined;
  const redis = spawn(
    "redis-server",
    [
      ...["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      ...(socket ? ["--unixsocket", socket, "--unixsocketperm", "700"] : []),
    ],
    { stdio: "ignore" },
  );
  const started = await new Promise<boolean>((resolve) => {
    redis.once("error", () => resolve(false));
    setTimeout(() => resolve(true), 300);
  });
  if (started) return { port, ...(socket ? { socket } : {}), process: redis };
  if (process.env.CI === "true") throw new Error("CI=true but redis-server could not be started");
  console.warn("skipped: no redis-server program to start a Redis of the test's own");
  return undefined;
}

export const MARIADB_URL = "mysql://root@127.0.0.1:3306/test";
export const POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test";

/** Like redisAvailable, for a database engine on its standard port. */
export async function engineAvailable(name: string, port: number): Promise<boolean> {
  if (await reachable(port)) return true;
  if (process.env.CI === "true")
    throw new Error(`CI=true but no ${name} answers at 127.0.0.1:${port}`);
  console.warn(
    `skipped: no ${name} at 127.0.0.1:${port} (start it, or run in CI where it is required)`,
  );
  return false;
}
