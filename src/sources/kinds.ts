import { ConfigError } from "../config/errors.js";
import { configSchema } from "../config/schema.js";
import { ToolsetsSchema } from "../toolsets/kinds.js";
import { builtinKind } from "./builtin/index.js";
import { commandKind } from "./command/index.js";
import { emcpKind } from "./emcp/index.js";
import type { AnySourceKind } from "./kind.js";
import { httpKind, stdioKind } from "./mcp/index.js";
import { openApiKind } from "./openapi/index.js";
import { registryKind } from "./registry/index.js";
import { wasmKind } from "./wasm/index.js";

/** Every kind of source there is. A new kind: its folder under sources/, and one entry here. */
export const SOURCE_KINDS = [
  stdioKind,
  httpKind,
  emcpKind,
  commandKind,
  openApiKind,
  wasmKind,
  registryKind,
  builtinKind,
] as const;

/** The config format, with the `source` of every kind and the settings of every toolset. */
export const ConfigSchema = (([first, ...rest]) =>
  configSchema([first.configSchema, ...rest.map((kind) => kind.configSchema)], ToolsetsSchema))(
  SOURCE_KINDS,
);

const BY_BACKEND = new Map<string, AnySourceKind>(SOURCE_KINDS.map((k) => [k.backend, k]));

/** The kind of a validated source config. */
export function kindOf(backend: string): AnySourceKind {
  const kind = BY_BACKEND.get(backend);
  // The config's schema admits only the backends listed above.
  if (!kind) throw new ConfigError("config", [`no source kind "${backend}"`]);
  return kind;
}
