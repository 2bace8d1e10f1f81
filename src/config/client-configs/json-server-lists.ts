import { z } from "zod";
import { jsonPath } from "../errors.js";
import { ClientVariables } from "./client-variables.js";
import type { ReadServers } from "./client-server.js";
import { readJsonServer } from "./json-server-entry.js";

const Entries = z.record(z.string(), z.unknown());
const VsCodeInput = z.looseObject({ id: z.string(), description: z.string().optional() });

/**
 * `{"mcpServers": {NAME: {...}}}`: Claude Desktop, Claude Code (`.mcp.json`),
 * Cursor, Windsurf, Cline and Gemini CLI (`settings.json`) all write their
 * servers so.
 */
export function readMcpServers(
  doc: Record<string, unknown>,
  file: string,
  problems: string[],
): ReadServers {
  const warnings: string[] = [];
  const variables = new ClientVariables(file, warnings);
  return {
    servers: readEntries(doc.mcpServers, ["mcpServers"], variables, warnings, problems),
    warnings,
  };
}

/**
 * VS Code's `.vscode/mcp.json` (`{"servers": {...}, "inputs": [...]}`), or
 * its settings' `{"mcp": {"servers": ..., "inputs": ...}}`.
 */
export function readVsCodeServers(
  doc: Record<string, unknown>,
  file: string,
  problems: string[],
): ReadServers {
  const nested = doc.mcp !== null && typeof doc.mcp === "object" && !("servers" in doc);
  const root = (nested ? doc.mcp : doc) as Record<string, unknown>;
  const where = nested ? ["mcp"] : [];
  const inputs = z.array(VsCodeInput).safeParse(root.inputs ?? []);
  if (!inputs.success)
    problems.push(`${jsonPath([...where, "inputs"])}: expected a list of {"id", ...}`);
  const warnings: string[] = [];
  const descriptions = new Map((inputs.data ?? []).map((i) => [i.id, i.description ?? ""]));
  const variables = new ClientVariables(file, warnings, descriptions);
  return {
    servers: readEntries(root.servers, [...where, "servers"], variables, warnings, problems),
    warnings,
  };
}

function readEntries(
  raw: unknown,
  where: string[],
  variables: ClientVariables,
  warnings: string[],
  problems: string[],
) {
  const entries = Entries.safeParse(raw);
  if (!entries.success) {
    problems.push(`${jsonPath(where)}: expected an object of servers by name`);
    return [];
  }
  return Object.entries(entries.data).flatMap(([name, entry]) => {
    const server = readJsonServer(name, entry, [...where, name], variables, warnings, problems);
    return server ? [server] : [];
  });
}
