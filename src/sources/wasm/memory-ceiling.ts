/**
 * The most linear memory one WebAssembly instance may grow to. V8 holds this
 * as one setting for the whole process (a worker's `resourceLimits` cover its
 * JavaScript heap, not WebAssembly memory), so the ceiling is the largest
 * `max_memory_mb` of the components mounted: past it `memory.grow` fails, the
 * guest traps, and its instance is replaced.
 */
import { setFlagsFromString } from "node:v8";

const PAGE_BYTES = 64 * 1024;
let ceilingMb = 0;

/** Raises the ceiling to at least `mb`; it is never lowered while the process runs. */
export function raiseWasmMemoryCeiling(mb: number): void {
  if (mb <= ceilingMb) return;
  ceilingMb = mb;
  setFlagsFromString(`--wasm-max-mem-pages=${(mb * 1024 * 1024) / PAGE_BYTES}`);
}
