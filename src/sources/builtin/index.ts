import { BrokerError } from "../../contract/errors.js";
import { defineSourceKind } from "../kind.js";
import { BuiltinSourceSchema, type BuiltinSourceConfig } from "./config.js";
import { BuiltinSource } from "./builtin-source.js";

/** One of the broker's built-in toolsets (the tool registry protocol's predefined tools), mounted in the tree. */
export const builtinKind = defineSourceKind<BuiltinSourceConfig>({
  backend: "builtin",
  configSchema: BuiltinSourceSchema,
  create: (config, { id, registry }) => {
    const toolset = registry.builtin(config.toolset);
    // The config's schema admits only the toolsets the broker builds.
    if (!toolset) throw new BrokerError("internal", `no built-in toolset ${config.toolset}`);
    return new BuiltinSource(id, toolset);
  },
});
