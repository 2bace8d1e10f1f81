import { z } from "zod";
import { jsonPath } from "../errors.js";
import type { ClientVariables } from "./client-variables.js";
import { sayIgnoredFields, type ClientServer } from "./client-server.js";

/** A string, or a number or boolean written where a string belongs (`"PORT": 8080`). */
const Text = z.union([z.string(), z.number(), z.boolean()]).transform(String);
const TextMap = z.record(z.string(), Text);
const Names = z.array(z.string().min(1));

/**
 * A server entry of the JSON formats: `mcpServers` (Claude Desktop, Claude
 * Code, Cursor, Windsurf, Cline, Gemini CLI) and VS Code's `servers`. Each
 * field that some client has is here; what the broker does not do is named
 * in IGNORED, and any other field is reported as unknown.
 */
const JsonServerEntry = z.looseObject({
  command: z.string().min(1).optional(),
  args: z.array(Text).optional(),
  env: TextMap.optional(),
  cwd: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
  serverUrl: z.string().min(1).optional(),
  httpUrl: z.string().min(1).optional(),
  headers: TextMap.optional(),
  type: z.string().optional(),
  transport: z.string().optional(),
  disabled: z.boolean().optional(),
  includeTools: Names.optional(),
  excludeTools: Names.optional(),
  description: z.string().optional(),
});

/** Fields a client has and the broker has no use for, with why. */
const IGNORED: Readonly<Record<string, string>> = {
  timeout: "a call's time limit is the broker's own (timeout, tool_overrides)",
  trust: "approvals are the broker's policy",
  autoApprove: "approvals are the broker's policy",
  alwaysAllow: "approvals are the broker's policy",
  envFile: "write the variables in env, or in the broker's environment",
  dev: "the editor's development mode has no equivalent",
  oauth: "the broker reaches a remote server with its own credentials (auth.client_credentials)",
  authProviderType: "the broker reaches a remote server with its own credentials",
};

const STDIO_TYPES = new Set(["stdio"]);
const HTTP_TYPES = new Set(["http", "streamable-http", "streamableHttp", "streamable_http"]);
const SSE_TYPES = new Set(["sse"]);

/**
 * One entry read, or undefined when it is disabled or unusable: problems
 * (wrong types) go to `problems` under `where`, what is left out to `warnings`.
 */
export function readJsonServer(
  name: string,
  raw: unknown,
  where: readonly PropertyKey[],
  variables: ClientVariables,
  warnings: string[],
  problems: string[],
): ClientServer | undefined {
  const parsed = JsonServerEntry.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push(`${jsonPath([...where, ...issue.path])}: ${issue.message}`);
    return undefined;
  }
  const entry = parsed.data;
  const said = (what: string) => warnings.push(`server "${name}": ${what}`);
  if (entry.disabled === true) {
    said("disabled in the file; left out");
    return undefined;
  }
  sayIgnoredFields(entry, JsonServerEntry.shape, IGNORED, said);
  const kind = entry.type ?? entry.transport;
  if (kind !== undefined && !STDIO_TYPES.has(kind) && !HTTP_TYPES.has(kind) && !SSE_TYPES.has(kind))
    said(`type "${kind}" is not one the broker knows (stdio, http, sse); read as written`);
  const url = entry.httpUrl ?? entry.url ?? entry.serverUrl;
  const text = (value: string) => variables.value(value);
  const map = (values: Record<string, string> | undefined, read = text) =>
    values && Object.fromEntries(Object.entries(values).map(([k, v]) => [k, read(v)]));
  return {
    name,
    ...(entry.command !== undefined ? { command: text(entry.command) } : {}),
    ...(entry.args ? { args: entry.args.map(text) } : {}),
    ...(entry.env ? { env: map(entry.env, (v) => variables.envValue(v)) } : {}),
    ...(entry.cwd !== undefined ? { cwd: text(entry.cwd) } : {}),
    ...(url !== undefined ? { url: text(url) } : {}),
    // Only a declared "sse" is known to be the older transport: a bare `url` may be either.
    ...(kind !== undefined && SSE_TYPES.has(kind) ? { transport: "sse" as const } : {}),
    ...(entry.headers ? { headers: map(entry.headers) } : {}),
    ...(entry.includeTools ? { includeTools: entry.includeTools } : {}),
    ...(entry.excludeTools ? { excludeTools: entry.excludeTools } : {}),
    ...(entry.description ? { description: entry.description } : {}),
  };
}
