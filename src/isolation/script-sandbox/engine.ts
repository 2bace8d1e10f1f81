import { readFile } from "node:fs/promises";
import * as quickjsPackage from "@jitl/quickjs-wasmfile-release-sync";
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from "quickjs-emscripten-core";

// The package's types describe its CommonJS build, where the variant is
// `exports.default`; Node loads its ES module, where it is the default export.
const variant = unwrapped(quickjsPackage.default);

function unwrapped(
  imported: QuickJSSyncVariant | { default: QuickJSSyncVariant },
): QuickJSSyncVariant {
  return "default" in imported ? imported.default : imported;
}

const PAGE_BYTES = 64 * 1024;
/** What the engine holds before a script allocates anything: its data, stack and first heap. */
const ENGINE_BASE_BYTES = 16 * 1024 * 1024;

/** Whether an engine's memory has grown past its first size. */
export function engineGrew(engine: QuickJSWASMModule): boolean {
  return engine.getWasmMemory().buffer.byteLength > ENGINE_BASE_BYTES;
}

/** Whether an engine's memory has grown to its maximum: an allocation there fails. */
export function engineIsFull(engine: QuickJSWASMModule, memoryBytes: number): boolean {
  return engine.getWasmMemory().buffer.byteLength >= maxBytes(memoryBytes);
}

function maxBytes(memoryBytes: number): number {
  return Math.ceil((ENGINE_BASE_BYTES + memoryBytes) / PAGE_BYTES) * PAGE_BYTES;
}

/** Makes a QuickJS engine: runs take turns in it, one at a time (see engine-pool.ts). */
export type EngineFactory = (memoryBytes: number) => Promise<QuickJSWASMModule>;

/**
 * Compiles QuickJS's WebAssembly once and returns a factory of instances,
 * each with a WebAssembly memory of its own that cannot grow past the base
 * plus the run's heap.
 *
 * Why not one instance for all runs, with QuickJS's own memory limit: under
 * Emscripten, QuickJS counts each allocation as 8 bytes whatever its size (it
 * has no `malloc_usable_size` there), so its limit bounds one allocation, not
 * the total; a script keeping many 100 KB strings grew a shared instance to
 * 2 GiB under a 64 MiB limit. A memory with a maximum makes `malloc` fail and
 * QuickJS throw "out of memory" at the bound, whatever allocates. And memory
 * goes back whole when an instance is dropped: a WebAssembly memory never
 * shrinks, so a shared one would keep its largest run's size forever.
 */
export async function loadEngine(): Promise<EngineFactory> {
  const wasmModule = await WebAssembly.compile(
    await readFile(new URL(import.meta.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"))),
  );
  return (memoryBytes) =>
    newQuickJSWASMModuleFromVariant(
      newVariant(variant, {
        wasmModule,
        wasmMemory: new WebAssembly.Memory({
          initial: ENGINE_BASE_BYTES / PAGE_BYTES,
          maximum: maxBytes(memoryBytes) / PAGE_BYTES,
        }),
      }),
    );
}
