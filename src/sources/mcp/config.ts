/** The `source` fields of MCP servers: a program over stdio, or a Streamable HTTP URL. */
import { z } from "zod";
import { ConfigPath, WorkingDirectory } from "../../config/config-folder.js";
import { SourceSandboxSchema } from "../../config/sandbox-schema.js";
import { mountFields } from "../../config/schema.js";

/**
 * Which MCP revision to speak to a backend: `auto` asks with `server/discover`
 * and falls back to `initialize`; a revision pins it.
 */
export const RevisionSchema = z
  .enum(["auto", "2026-07-28", "2025-11-25"])
  .default("auto")
  .describe(
    'The MCP revision the backend speaks: "auto" (default) probes with server/discover, then initialize; "2026-07-28" or "2025-11-25" pins it (no probe).',
  );

/** Seconds a backend's start may take unless its source says otherwise. */
export const DEFAULT_START_TIMEOUT_S = 60;

const StartTimeoutSchema = z
  .number()
  .positive()
  .max(3600)
  .default(DEFAULT_START_TIMEOUT_S)
  .describe(
    "Seconds the start may take (the MCP handshake and the first tools/list) before it counts as failed and is tried again; default 60. Give more to a server that npx or uvx fetches, or docker run pulls, on its first run.",
  );

/** Pages of a backend's `tools/list` followed unless its source says otherwise. */
export const DEFAULT_MAX_LIST_PAGES = 100;

const MaxListPagesSchema = z
  .int()
  .positive()
  .max(10_000)
  .default(DEFAULT_MAX_LIST_PAGES)
  .describe(
    "Pages of the backend's tools/list followed; past them the list ends there, with a warning in the log. Default 100.",
  );

/** The most roots a source may give its backend. */
const MAX_ROOTS = 64;

const RootsSchema = z
  .array(ConfigPath)
  .max(MAX_ROOTS)
  .optional()
  .describe(
    "Folders given to the backend as its roots: the broker answers its roots/list with them (as file:// URIs), during calls and outside any, the same for every caller; relative to the config file's folder. Without it, a roots/list during a call is asked of the client that made the call, and one outside any call of the one client of mcp-broker stdio, or refused where the broker serves many.",
  );

export const StdioSourceSchema = z.strictObject({
  backend: z.literal("stdio"),
  command: z
    .union([z.string().min(1), z.array(z.string()).min(1)])
    .describe(
      "The program and its arguments; a string is split like a shell would, never run by one.",
    ),
  env: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      "Extra environment; the child otherwise gets only PATH, HOME and a few safe variables.",
    ),
  cwd: WorkingDirectory,
  sandbox: SourceSandboxSchema,
  revision: RevisionSchema,
  start_timeout_s: StartTimeoutSchema,
  max_list_pages: MaxListPagesSchema,
  roots: RootsSchema,
  ...mountFields,
});

export const HttpSourceSchema = z.strictObject({
  backend: z.literal("http"),
  url: z
    .url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" })
    .describe("The Streamable HTTP endpoint of a remote MCP server."),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe("Sent with every request, such as Authorization; ${ENV} works here too."),
  auth: z
    .strictObject({
      client_credentials: z.strictObject({
        client_id: z.string().min(1),
        client_secret: z
          .string()
          .min(1)
          .describe('Write it as "${ENV_NAME}": the config file then holds no secret.'),
        scope: z.string().min(1).optional().describe("The scopes to ask for, space-separated."),
        issuer: z
          .url({ protocol: /^https?$/ })
          .optional()
          .describe(
            "The authorization server the secret may go to (its metadata's issuer). Without it, the secret goes only to an authorization server on the backend's own host, and a backend naming one elsewhere fails to start, saying so.",
          ),
      }),
    })
    .optional()
    .describe(
      "The broker's own OAuth token for this backend (client credentials grant, its authorization server found from the backend's protected resource metadata), renewed before it expires. The caller's token is never sent.",
    ),
  revision: RevisionSchema,
  start_timeout_s: StartTimeoutSchema,
  max_list_pages: MaxListPagesSchema,
  roots: RootsSchema,
  ...mountFields,
});

export type StdioSourceConfig = z.infer<typeof StdioSourceSchema>;
export type HttpSourceConfig = z.infer<typeof HttpSourceSchema>;
export type Revision = z.infer<typeof RevisionSchema>;
