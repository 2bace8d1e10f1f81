import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { descendantPids } from "../../bench/process-cpu.js";
import { isAlive } from "../helpers/broker.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * What a user or a process manager does: `npm start`, then SIGTERM (or
 * SIGINT) to the process it started. The broker and every backend it runs
 * must be gone afterwards, none left behind under PID 1.
 */
describe("npm start", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "stops the broker and every backend on %s to the npm process",
    async (signal) => {
      const npm = spawn("npm", ["start", "--silent"], {
        cwd: ROOT,
        env: {
          ...process.env,
          PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
          MCP_BROKER_LISTEN: "127.0.0.1:0",
          MCP_BROKER_DEMO_MEMORY: `/tmp/mcp-broker-test-memory-${process.pid}.jsonl`,
        },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let log = "";
      await new Promise<void>((resolve, reject) => {
        npm.stderr!.on("data", (d: Buffer) => {
          log += d.toString();
          if (log.includes('"msg":"listening"')) resolve();
        });
        npm.once("exit", (code) => reject(new Error(`npm start exited with ${code}: ${log}`)));
      });
      const started = descendantPids(npm.pid!);
      // The broker and its three stdio backends, at least.
      expect(started.length).toBeGreaterThanOrEqual(4);
      const exited = new Promise((resolve) => npm.once("exit", resolve));
      npm.kill(signal);
      await exited;
      await expect
        .poll(() => started.filter(isAlive), { timeout: 10_000, interval: 200 })
        .toEqual([]);
    },
    90_000,
  );
});
