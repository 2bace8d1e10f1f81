import { z } from "zod";
import { literalText } from "../env.js";
import { jsonPath } from "../errors.js";
import { sayIgnoredFields, type ClientServer, type ReadServers } from "./client-server.js";

const Names = z.array(z.string().min(1));
const TextMap = z.record(z.string(), z.string());

/** A `[mcp_servers.NAME]` table of Codex CLI's `config.toml`. */
const CodexServer = z.looseObject({
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: TextMap.optional(),
  env_vars: Names.optional(),
  cwd: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
  bearer_token_env_var: z.string().min(1).optional(),
  http_headers: TextMap.optional(),
  env_http_headers: TextMap.optional(),
  enabled: z.boolean().optional(),
  enabled_tools: Names.optional(),
  disabled_tools: Names.optional(),
  startup_timeout_sec: z.number().positive().optional(),
  startup_timeout_ms: z.number().positive().optional(),
});

/** Codex reads its values as written: a `${` in one is not a variable of the broker's. */
const literals = (values: Record<string, string> | undefined) =>
  values && Object.fromEntries(Object.entries(values).map(([k, v]) => [k, literalText(v)]));

const IGNORED: Readonly<Record<string, string>> = {
  tool_timeout_sec: "a call's time limit is the broker's own (timeout, tool_overrides)",
  oauth: "the broker reaches a remote server with its own credentials (auth.client_credentials)",
  bearer_token: "write the token in an environment variable and name it in bearer_token_env_var",
  required: "every source must start unless --ignore-broken-tool is given",
};

/**
 * Codex CLI's TOML (`~/.codex/config.toml`): `[mcp_servers.NAME]` with
 * `command`/`args`/`env`/`env_vars`/`cwd`, or `url` with
 * `bearer_token_env_var`, `http_headers` and `env_http_headers`.
 * Variables named in `env_vars`, `bearer_token_env_var` and
 * `env_http_headers` are read from the broker's environment.
 */
export function readCodexServers(doc: Record<string, unknown>, problems: string[]): ReadServers {
  const warnings: string[] = [];
  const tables = z.record(z.string(), z.unknown()).safeParse(doc.mcp_servers);
  if (!tables.success) {
    problems.push(`${jsonPath(["mcp_servers"])}: expected [mcp_servers.NAME] tables`);
    return { servers: [], warnings };
  }
  const servers: ClientServer[] = [];
  for (const [name, raw] of Object.entries(tables.data)) {
    const parsed = CodexServer.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push(`${jsonPath(["mcp_servers", name, ...issue.path])}: ${issue.message}`);
      continue;
    }
    const entry = parsed.data;
    const said = (what: string) => warnings.push(`server "${name}": ${what}`);
    if (entry.enabled === false) {
      said("disabled in the file; left out");
      continue;
    }
    sayIgnoredFields(entry, CodexServer.shape, IGNORED, said);
    const env = {
      ...Object.fromEntries((entry.env_vars ?? []).map((v) => [v, `\${${v}}`])),
      ...literals(entry.env),
    };
    const headers = {
      ...literals(entry.http_headers),
      ...Object.fromEntries(
        Object.entries(entry.env_http_headers ?? {}).map(([h, v]) => [h, `\${${v}}`]),
      ),
      ...(entry.bearer_token_env_var
        ? { Authorization: `Bearer \${${entry.bearer_token_env_var}}` }
        : {}),
    };
    const startTimeoutS =
      entry.startup_timeout_sec ??
      (entry.startup_timeout_ms !== undefined ? entry.startup_timeout_ms / 1000 : undefined);
    servers.push({
      name,
      ...(entry.command !== undefined ? { command: literalText(entry.command) } : {}),
      ...(entry.args ? { args: entry.args.map(literalText) } : {}),
      ...(Object.keys(env).length > 0 ? { env } : {}),
      ...(entry.cwd !== undefined ? { cwd: literalText(entry.cwd) } : {}),
      ...(entry.url !== undefined ? { url: literalText(entry.url) } : {}),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(entry.enabled_tools ? { includeTools: entry.enabled_tools } : {}),
      ...(entry.disabled_tools ? { excludeTools: entry.disabled_tools } : {}),
      ...(startTimeoutS !== undefined ? { startTimeoutS } : {}),
    });
  }
  return { servers, warnings };
}
