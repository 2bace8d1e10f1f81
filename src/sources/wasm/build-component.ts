/**
 * `mcp-broker wasm build`: a JavaScript module that exports `router` becomes a
 * component of the world `mcp-router` in the package's `wit/`, with
 * componentize-js. Loaded only here, so serving never pulls in the toolchain.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { _setPreopens } from "@bytecodealliance/preview2-shim/filesystem";

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
  (_setPreopens as (preopens: Record<string, string>) => void)({ "/": "/" });
  const began = performance.now();
  const { component } = await toolchain.componentize({
    sourcePath,
    witPath: WIT_DIR,
    worldName: "mcp-router-host",
  });
  const target = resolve(out);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, component);
  return { bytes: component.byteLength, ms: Math.round(performance.now() - began) };
}
