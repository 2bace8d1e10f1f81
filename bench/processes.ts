/** Processes a benchmark starts: brokers and peers, each stopped when the run ends. */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, reachable } from "../test/helpers/services.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const children: ChildProcess[] = [];

/**
 * The built program, as an installed `mcp-broker` runs it (`npm run bench`
 * builds it first). Run from source, tsx compiles every function with its
 * name kept, a property store of its own each: that adds to what a call and
 * a session cost, and is not what users run.
 */
export function builtBroker(): string {
  const main = join(root, "dist/main.js");
  if (!existsSync(main)) throw new Error("dist/ is not built: run npm run build first");
  return main;
}

/** A module of the built program, typed as its source: for benchmarks that run the broker in process. */
export function builtModule<T>(path: string): Promise<T> {
  builtBroker();
  return import(join(root, "dist", path)) as Promise<T>;
}

export function stopChildren(): void {
  for (const child of children) child.kill("SIGTERM");
  setTimeout(() => process.exit(), 500).unref();
}

export function start(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d.toString();
      const port =
        /^(\d+)$/m.exec(out)?.[1] ??
        /"msg":"listening".*"port":(\d+)|"port":(\d+).*"msg":"listening"/
          .exec(out)
          ?.slice(1)
          .find(Boolean);
      if (!port) return;
      // From here on the output is drained unread: a growing log scanned on every chunk
      // would slow this process, the load generator, down.
      child.stdout!.off("data", onData).resume();
      child.stderr!.off("data", onData).resume();
      resolve({ child, port: Number(port) });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${out}`)));
  });
}

/** Starts a program that listens on `port`, and waits until it answers HTTP there. */
export async function startOnPort(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "ignore", "ignore"] });
  children.push(child);
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited with ${child.exitCode}`);
    const up = await fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
    if (up) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${args.join(" ")} did not listen on ${port}`);
}

export async function broker(config: unknown): Promise<{ child: ChildProcess; port: number }> {
  const file = join(mkdtempSync(join(tmpdir(), "mcp-broker-bench-")), "config.json");
  writeFileSync(file, JSON.stringify(config));
  const path = `${join(root, "node_modules/.bin")}:${process.env.PATH}`;
  return start([builtBroker(), "127.0.0.1:0", file, "--log-level", "info"], { PATH: path });
}

/** Whether something accepts connections on Redis's port. */
export function redisReachable(): Promise<boolean> {
  return reachable(6379);
}

export { freePort };
