/**
 * `mcp-broker wasm build`: a JavaScript module that exports `router` becomes a
 * component of the world `mcp-router` in the package's `wit/`, with
 * componentize-js. Loaded only here, so serving never pulls in the toolchain.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's `wit/` folder, from `src/sources/wasm` or `dist/sources/wasm` alike. */
export const WIT_DIR = fileURLToPath(new URL("../../../wit", import.meta.url));
const TOOLCHAIN = "@bytecodealliance/componentize-js";

export interface BuiltComponent {
  readonly bytes: number;
  readonly ms: number;
}

export async function buildComponent(entry: string, out: string): Promise<BuiltComponent> {
  const sourcePath = resolve(entry);
  if (!existsSync(sourcePath)) throw new Error(`${entry} not found`);
  // componentize-js reports a syntax error without saying where; Node does.
  const check = spawnSync(process.execPath, ["--check", sourcePath], { encoding: "utf8" });
  if (check.status !== 0)
    throw new Error(`${entry} is not valid JavaScript:\n${syntaxErrorOf(check.stderr)}`);
  let toolchain: typeof import("@bytecodealliance/componentize-js");
  try {
    toolchain = await import(TOOLCHAIN);
  } catch {
    throw new Error(
      `building components needs ${TOOLCHAIN}; install it beside the broker: npm install --save-dev ${TOOLCHAIN}@0.23`,
    );
  }
  // componentize-js reads the sources through WASI, which opens no host folder
  // unless told; it also needs absolute paths. (TypeScript resolves the shim's
  // browser typings, where preopens are not paths.)
  const { _setPreopens } = await import("@bytecodealliance/preview2-shim/filesystem");
  (_setPreopens as (preopens: Record<string, string>) => void)({ "/": "/" });
  const began = performance.now();
  const { component } = await toolchain
    .componentize({ sourcePath, witPath: WIT_DIR, worldName: "mcp-router-host" })
    .catch((err: Error) => {
      throw new Error(`${entry}: ${err.message}`);
    });
  const target = resolve(out);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, component);
  return { bytes: component.byteLength, ms: Math.round(performance.now() - began) };
}

/** Node's report without its own stack: the file, line, the line itself and the error. */
function syntaxErrorOf(stderr: string): string {
  return stderr
    .split("\n")
    .filter((line) => !/^\s+at |^Node\.js v/.test(line))
    .join("\n")
    .trim();
}
