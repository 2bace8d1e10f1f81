import { ALL_SCOPES } from "../auth/scopes.js";
import { Broker } from "../broker/broker.js";
import { loadConfig } from "../config/load.js";
import type { Logger } from "../contract/log.js";
import type { DefinitionChange } from "../pinning/pin-book.js";
import { ConfigSchema } from "../sources/kinds.js";

/** Who approves from the command line: the person at it, with every scope, as the SECRET has. */
const COMMAND_LINE = { id: "command-line", scopes: ALL_SCOPES };

/**
 * `mcp-broker pins list|approve CONFIG [PATH]`: starts the config's sources,
 * compares their tools with the pins in the config's pin store (as a
 * running broker does), prints the changes with their diffs, or approves
 * one, and stops. Returns the text to print.
 */
export async function pinsCommand(
  configFile: string,
  log: Logger,
  approve?: string,
): Promise<string> {
  const config = await loadConfig(configFile, ConfigSchema, { warn: (m) => log.warn(m) });
  if (config.pinning.mode === "off")
    return `${configFile}: pinning is off; nothing is pinned or compared\n`;
  const broker = await Broker.start(config, { log, ignoreBroken: true });
  try {
    if (approve !== undefined) {
      const pin = await broker.approveDefinition(approve, COMMAND_LINE);
      return `approved ${approve}: its definition ${pin.sha256.slice(0, 12)}… is pinned\n`;
    }
    const changes = broker.definitionChanges(COMMAND_LINE);
    if (changes.length === 0) return "every tool's definition is the one pinned\n";
    return changes.map(describeChange).join("\n");
  } finally {
    await broker.close();
  }
}

function describeChange(change: DefinitionChange): string {
  const what = [
    `${change.path}: ${change.kind}${change.held ? ", held back" : ""}`,
    change.fields.length > 0 ? `  fields: ${change.fields.join(", ")}` : "",
    ...change.findings.map((f) => `  ${f.rule} in ${f.field}: ${f.excerpt}`),
    change.diff,
  ];
  return what.filter((line) => line !== "").join("\n") + "\n";
}
