import { spawn, type ChildProcess } from "node:child_process";
import { cliArgv } from "./cli.js";

export interface BrokerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** The log lines it has written so far, parsed. */
  logLines(): Record<string, unknown>[];
  stop(): Promise<void>;
}

/** The broker as a real process of its own, on a free loopback port. */
export async function spawnBroker(configFile: string, ...flags: string[]): Promise<BrokerProcess> {
  const [cmd, ...args] = cliArgv("127.0.0.1:0", configFile, "--log-level", "info", ...flags) as [
    string,
    ...string[],
  ];
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      log += d.toString();
      const line = log.split("\n").find((l) => l.includes('"msg":"listening"'));
      if (line) resolve(JSON.parse(line).port);
    });
    child.once("exit", (code) => reject(new Error(`the broker exited with ${code}: ${log}`)));
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    logLines: () =>
      log
        .split("\n")
        .filter((l) => l.startsWith("{") && l.endsWith("}"))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
