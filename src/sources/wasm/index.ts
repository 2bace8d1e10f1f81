import { statSync } from "node:fs";
import { defineSourceKind } from "../kind.js";
import { WasmSourceSchema, type WasmSourceConfig } from "./config.js";
import { WasmSource } from "./wasm-source.js";

/** A WebAssembly component exporting the `wasix:mcp` router (the `wasix:mcp` router interface), sandboxed. */
export const wasmKind = defineSourceKind<WasmSourceConfig>({
  backend: "wasm",
  configSchema: WasmSourceSchema,
  create: (config, { id, log }) => new WasmSource(id, config, log),
  // A rebuilt component is a new one: a reload picks it up.
  beyondConfig: (config) => statSync(config.component, { throwIfNoEntry: false })?.mtimeMs,
});
