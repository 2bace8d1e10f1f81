/**
 * Transpiles a component once: jco's output is kept on disk under the hash of
 * the component's bytes (and jco's version), so a restart only compiles it.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { cacheFolder } from "../../contract/cache-folder.js";
import { MANIFEST, type TranspileManifest } from "./transpile-manifest.js";

// The transpiled code depends on jco's version as much as on the component.
// (The package does not export its package.json; it sits above its entry.)
const JCO_VERSION = (
  JSON.parse(
    readFileSync(
      new URL("../package.json", import.meta.resolve("@bytecodealliance/jco-transpile")),
      "utf8",
    ),
  ) as { version: string }
).version;
// A file of its own, run by Node: `.ts` when the broker runs from source.
const TRANSPILER = fileURLToPath(
  new URL(`./transpile-process${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url),
);
const ENTRY = "component.js";

/** A component transpiled to JavaScript, ready to instantiate. */
export interface TranspiledComponent {
  /** SHA-256 of the component's bytes, hex. */
  readonly hash: string;
  /** file: URL of the module whose `instantiate` builds an instance. */
  readonly moduleUrl: string;
  /** The WIT interfaces the component imports, such as `wasi:filesystem/types`. */
  readonly imports: readonly string[];
  /** The WIT interfaces and functions it exports. */
  readonly exports: readonly string[];
  /** Compiled core modules by file name; compiled once, shared by every instance. */
  readonly coreModules: Readonly<Record<string, WebAssembly.Module>>;
  /** Whether the transpile came from the cache. */
  readonly cached: boolean;
}

/** `$XDG_CACHE_HOME/mcp-broker/wasm`, else `~/.cache/mcp-broker/wasm`. */
export function defaultCacheDir(): string {
  return cacheFolder("wasm");
}

/** Reads, transpiles (or finds in the cache) and compiles the component at `path`. */
export async function loadComponent(path: string, cacheDir: string): Promise<TranspiledComponent> {
  const bytes = await readFile(path);
  const hash = createHash("sha256").update(bytes).digest("hex");
  const dir = join(cacheDir, `${hash}-jco${JCO_VERSION}`);
  const cached = existsSync(join(dir, MANIFEST));
  if (!cached) await transpileInto(bytes, dir);
  const manifest = JSON.parse(await readFile(join(dir, MANIFEST), "utf8")) as TranspileManifest;
  const coreModules: Record<string, WebAssembly.Module> = {};
  for (const name of manifest.coreModules)
    coreModules[name] = await WebAssembly.compile(await readFile(join(dir, name)));
  return {
    hash,
    moduleUrl: pathToFileURL(join(dir, ENTRY)).href,
    imports: manifest.imports,
    exports: manifest.exports,
    coreModules,
    cached,
  };
}

/**
 * Transpiles into a fresh folder beside `dir`, then renames it into place, so
 * a broker stopped half way, or a second one transpiling the same component,
 * never leaves a half-written entry.
 */
async function transpileInto(bytes: Uint8Array, dir: string): Promise<void> {
  await mkdir(dirname(dir), { recursive: true });
  const staging = await mkdtemp(`${dir}.partial-`);
  try {
    await new Promise<void>((resolve, reject) => {
      // The bytes that were hashed, not the file again: it may have changed since.
      const child = execFile(
        process.execPath,
        [TRANSPILER, staging],
        { maxBuffer: 1024 * 1024 },
        (err, _stdout, stderr) =>
          err ? reject(new Error(stderr.trim() || err.message)) : resolve(),
      );
      child.stdin?.end(bytes);
    });
    await rename(staging, dir).catch(async (err: NodeJS.ErrnoException) => {
      // Another broker won the race with the same bytes: its entry is as good.
      if (!existsSync(join(dir, MANIFEST))) throw err;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
