import { defineSourceKind } from "../kind.js";
import { RegistrySourceSchema, type RegistrySourceConfig } from "./config.js";
import { RegistrySource } from "./registry-source.js";

/** A tool service registered at run time over the registry protocol. */
export const registryKind = defineSourceKind<RegistrySourceConfig>({
  backend: "registry",
  configSchema: RegistrySourceSchema,
  create: (config, { id, registry }) => new RegistrySource(id, config.tool, registry),
});
