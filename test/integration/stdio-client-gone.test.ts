import { spawn, type ChildProcessByStdio } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { descendantPids } from "../../bench/process-cpu.js";
import { fixtureCommand, isAlive, writeConfig } from "../helpers/broker.js";
import { cliArgv } from "../helpers/cli.js";
import { INITIALIZE } from "../helpers/mcp-client.js";

/**
 * `mcp-broker stdio` lives as long as its client: however the client goes
 * away, the broker and every backend it started end, the way a desktop
 * client and an agent SDK expect when they quit.
 */
const config = writeConfig({
  registry: { predefined: false },
  tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand(), name: "fx" } }],
});

const line = (message: unknown) => `${JSON.stringify(message)}\n`;

type Broker = ChildProcessByStdio<Writable, Readable, null>;

/** The broker as a client starts it, once its backend runs; with every process it started. */
async function startBroker(): Promise<{
  broker: Broker;
  started: number[];
  exited: Promise<number | null>;
}> {
  const [command, ...args] = cliArgv("stdio", config, "--log-level", "silent") as [
    string,
    ...string[],
  ];
  const broker = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  const exited = new Promise<number | null>((resolve) => broker.once("exit", resolve));
  // Started once its backend, the broker's child, is.
  await expect
    .poll(() => descendantPids(broker.pid!).length, { timeout: 30_000 })
    .toBeGreaterThanOrEqual(1);
  return { broker, started: [broker.pid!, ...descendantPids(broker.pid!)], exited };
}

async function expectAllGone(exited: Promise<number | null>, started: number[]): Promise<void> {
  expect(await exited).toBe(0);
  await expect.poll(() => started.filter(isAlive), { timeout: 10_000 }).toEqual([]);
}

describe("mcp-broker stdio when its client goes away", () => {
  it("ends when the client closes stdin before saying anything", async () => {
    const { broker, started, exited } = await startBroker();
    broker.stdin.end();
    await expectAllGone(exited, started);
  }, 60_000);

  it("ends when the client stops reading before the first answer but holds stdin open", async () => {
    const { broker, started, exited } = await startBroker();
    // The answer to initialize meets a closed pipe (EPIPE); stdin never ends.
    broker.stdout.destroy();
    broker.stdin.write(line(INITIALIZE));
    await expectAllGone(exited, started);
    broker.stdin.destroy();
  }, 60_000);

  it("ends when the client quits right after asking, both pipes closed", async () => {
    const { broker, started, exited } = await startBroker();
    broker.stdin.write(line(INITIALIZE));
    broker.stdin.destroy();
    broker.stdout.destroy();
    await expectAllGone(exited, started);
  }, 60_000);

  it("ends when the client quits while a call is in flight", async () => {
    const { broker, started, exited } = await startBroker();
    const messages = createInterface({ input: broker.stdout });
    const inFlight = new Promise<void>((resolve) =>
      messages.on("line", (text) => {
        const message = JSON.parse(text) as { method?: string };
        if (message.method === "notifications/progress") resolve();
      }),
    );
    broker.stdin.write(line(INITIALIZE));
    broker.stdin.write(line({ jsonrpc: "2.0", method: "notifications/initialized" }));
    broker.stdin.write(
      line({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "meta_call",
          arguments: { path: "/fx/sleep", args: { ms: 600_000 } },
          _meta: { progressToken: "p" },
        },
      }),
    );
    await inFlight;
    broker.stdin.destroy();
    broker.stdout.destroy();
    await expectAllGone(exited, started);
  }, 60_000);
});
