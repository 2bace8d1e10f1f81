import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../src/cli.ts", import.meta.url));
/** tsx's loader by its path: found from any working directory, as a desktop client's. */
const TSX = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
/** argv that runs the CLI from source with the Node running the tests. */
export const cliArgv = (...args: string[]) => [process.execPath, "--import", TSX, CLI, ...args];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(...args: string[]): Promise<CliResult> {
  const [cmd, ...rest] = cliArgv(...args) as [string, ...string[]];
  const child = spawn(cmd, rest, { stdio: ["ignore", "pipe", "pipe"] });
  return collect(child);
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}
