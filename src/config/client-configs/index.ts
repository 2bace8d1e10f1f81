import { isJsonObject } from "../../contract/json-text.js";
import { ConfigError } from "../errors.js";
import { readCodexServers } from "./codex-servers.js";
import type { ReadServers } from "./client-server.js";
import { readMcpServers, readVsCodeServers } from "./json-server-lists.js";
import { serverNodes } from "./server-node.js";

/** The formats of clients' server lists the broker reads, by what names them. */
export type ClientFormat = "mcpServers" | "vscode" | "codex";

export interface TranslatedConfig {
  /** The broker's own config, before `${ENV}` substitution and validation. */
  readonly config: { tree: Record<string, unknown>[] };
  readonly format: ClientFormat;
  /** What did not carry over, each naming its server or field. */
  readonly warnings: readonly string[];
}

/**
 * A parsed config document as the broker's own format: unchanged (and
 * undefined here) when it is one (`tree`); translated when it is a client's
 * list of servers, each server a node `/<name>`. `file` is the document's
 * absolute path, for the editors' `${workspaceFolder}`.
 */
export function translateClientConfig(doc: unknown, file: string): TranslatedConfig | undefined {
  if (!isJsonObject(doc)) throw new ConfigError(file, ["$: expected an object"]);
  const fields = doc;
  if ("tree" in fields) return undefined;
  const problems: string[] = [];
  let format: ClientFormat;
  let read: ReadServers;
  if ("mcpServers" in fields) {
    format = "mcpServers";
    read = readMcpServers(fields, file, problems);
  } else if ("mcp_servers" in fields) {
    format = "codex";
    read = readCodexServers(fields, problems);
  } else if ("servers" in fields || "mcp" in fields) {
    format = "vscode";
    read = readVsCodeServers(fields, file, problems);
  } else {
    throw new ConfigError(file, [
      '$: neither a broker config ("tree") nor a client\'s list of servers ("mcpServers"; VS Code\'s "servers"; Codex\'s [mcp_servers.NAME])',
    ]);
  }
  if (problems.length > 0) throw new ConfigError(file, problems);
  const warnings = [...read.warnings];
  const tree = serverNodes(read.servers, warnings);
  if (tree.length === 0)
    throw new ConfigError(file, [`$: no server to serve (${format})`, ...warnings]);
  return { config: { tree }, format, warnings };
}
