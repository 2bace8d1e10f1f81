/**
 * Run as a process of its own: `node transpile-process.js OUT_DIR`, the
 * component's bytes on stdin, writes jco's transpile and a manifest into OUT_DIR. Apart
 * from the broker because jco's own WebAssembly needs memory beyond the
 * ceiling the broker sets for components (memory-ceiling.ts), and because a
 * transpile takes a second or more of CPU the event loop should not wait on.
 * It imports nothing of the broker but types.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { buffer } from "node:stream/consumers";
import { dirname, join } from "node:path";
import { transpileBytes } from "@bytecodealliance/jco-transpile";
import type { TranspileManifest } from "./transpile-manifest.js";

const outDir = process.argv[2]!;
try {
  const result = await transpileBytes(await buffer(process.stdin), {
    name: "component",
    // The broker supplies the imports per instance: its own sandboxed WASI.
    instantiation: "async",
    emitTypescriptDeclarations: false,
    // A guest's error arrives as its WIT variant, `{tag, val}`.
    noComponentErrorWrapping: true,
  });
  for (const [name, content] of Object.entries(result.files)) {
    await mkdir(dirname(join(outDir, name)), { recursive: true });
    await writeFile(join(outDir, name), content);
  }
  // jco writes ES modules; this marks them so for Node.
  await writeFile(join(outDir, "package.json"), '{ "type": "module" }\n');
  const manifest: TranspileManifest = {
    imports: result.imports,
    exports: result.exports.map(([name]) => name),
    coreModules: Object.keys(result.files).filter((name) => name.endsWith(".wasm")),
  };
  await writeFile(join(outDir, "manifest.json"), JSON.stringify(manifest, null, 2));
} catch (err) {
  process.stderr.write((err as Error).message);
  process.exitCode = 1;
}
