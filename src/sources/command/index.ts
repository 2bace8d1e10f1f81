import { defineSourceKind } from "../kind.js";
import { CommandSource } from "./command-source.js";
import { CommandSourceSchema, type CommandSourceConfig } from "./config.js";

/** Local programs as tools: a closed list of command lines, run without a shell. */
export const commandKind = defineSourceKind<CommandSourceConfig>({
  backend: "command",
  configSchema: CommandSourceSchema,
  create: (config, { id, log }) => new CommandSource(id, config, log),
});
