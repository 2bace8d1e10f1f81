/**
 * The config format, as zod schemas: one definition gives the TypeScript types,
 * the validation with JSON-path messages, and the exported `config.schema.json`.
 * Objects are strict so that a misspelt key is an error, not a silent default.
 * What a `source` may hold is each source kind's own schema: `configSchema`
 * takes them (sources/kinds.ts lists the kinds), so this file knows none.
 */
import { ConfigPath, currentConfigFolder, fromConfigFolder } from "./config-folder.js";
import { z } from "zod";
import { nameMeant } from "../contract/did-you-mean.js";
import { SourceSandboxSchema } from "./sandbox-schema.js";

export const RENDER_MODES = ["mcp", "text", "json"] as const;
export const EXPOSE_MODES = ["meta", "flat", "both"] as const;

export const SCOPE_ACTIONS = [
  "tree",
  "describe",
  "call",
  "run",
  "register",
  "approve",
  "admin",
] as const;

export const LimitsSchema = z
  .strictObject({
    max_request_bytes: z
      .int()
      .positive()
      .optional()
      .describe("Bodies and arguments above this: 413."),
    max_result_items: z
      .int()
      .positive()
      .optional()
      .describe("A `limit` argument above this is refused as invalid params, naming the maximum."),
    max_result_bytes: z
      .int()
      .positive()
      .optional()
      .describe("A serialized result above this: 413. Default 16777216 (16 MiB)."),
    timeout_s: z.number().positive().optional().describe("Seconds before a call is cancelled."),
    max_args_depth: z
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe(
        "Arguments nested deeper than this (objects and arrays) are invalid params, checked before anything reads them; default 64.",
      ),
  })
  .describe("Global defaults; a node's or a tool's own limits win, the nearest first.");

export const ToolOverrideSchema = z.strictObject({
  summary: z.string().optional().describe("One line shown in meta_tree."),
  description: z.string().optional().describe("Replaces the backend's description."),
  max_output_chars: z
    .int()
    .positive()
    .optional()
    .describe("Output beyond this many characters is shortened and wrapped in a marker."),
  timeout: z.number().positive().optional().describe("Seconds before the call is cancelled."),
  example_args: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("Arguments shown by meta_desc."),
  render_mode: z
    .enum(RENDER_MODES)
    .optional()
    .describe("mcp: content as the backend gave it; text: one string; json: one JSON value."),
  limits: LimitsSchema.optional(),
});

/** What every source has beside its kind's own fields: how its tools are mounted. */
export const mountFields = {
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional()
    .describe("Name of this source, for /mcp/<name>; default: the node path, slashes as _."),
  tool_filter: z
    .array(z.string().min(1))
    .optional()
    .describe('Globs; "!pattern" denies. With no positive pattern every tool is allowed first.'),
  tool_overrides: z.record(z.string(), ToolOverrideSchema).optional(),
  path_aliases: z
    .record(z.string(), z.string().regex(/^[^/]+$/, "an alias is one path segment, without '/'"))
    .optional(),
  max_tools: z
    .int()
    .positive()
    .max(100_000)
    .optional()
    .describe(
      "The most tools mounted from this source; more are left out, with a warning in the log. Default 1000.",
    ),
};

/** The most tools a source mounts unless its `max_tools` says otherwise. */
export const DEFAULT_MAX_TOOLS = 1000;

/** A source as the tree sees it: its kind, and how its tools are mounted. */
export type SourceConfig = { readonly backend: string } & z.infer<z.ZodObject<typeof mountFields>>;

export interface NodeConfig {
  path: string;
  limits?: z.infer<typeof LimitsSchema> | undefined;
  type?: "node" | undefined;
  summary?: string | undefined;
  description?: string | undefined;
  children?: NodeConfig[] | undefined;
  source?: SourceConfig | undefined;
}

/** One kind's `source` schema: an object whose `backend` literal names the kind. */
export type SourceSchema = z.ZodType<SourceConfig> & z.core.$ZodTypeDiscriminable;

function nodeSchema(source: z.ZodType<SourceConfig>): z.ZodType<NodeConfig> {
  const node: z.ZodType<NodeConfig> = z.lazy(() =>
    z.strictObject({
      path: z.string().min(1).describe("Absolute (/a/b) or relative to the parent node."),
      type: z.literal("node").optional(),
      summary: z.string().optional(),
      description: z.string().optional(),
      children: z.array(node).optional(),
      source: source.optional(),
      limits: LimitsSchema.optional(),
    }),
  );
  return node;
}

/** A broker scope: ACTION:PATH-GLOB. */
export const SCOPE_PATTERN = /^(tree|describe|call|run|register|approve|admin|\*):\/\S*$/;

const ScopeSchema = z
  .string()
  .regex(
    SCOPE_PATTERN,
    'a scope is ACTION:PATH-GLOB, ACTION one of tree, describe, call, run, register, approve, admin or *, such as "call:/cms/**"',
  );

/** Principal ids the broker gives callers of its own: no token may take one. */
export const RESERVED_PRINCIPAL_IDS = ["anonymous", "shared-secret", "stdio"] as const;

export const TokenEntrySchema = z.strictObject({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, "an id is letters, digits, _ . -")
    .refine((id) => !(RESERVED_PRINCIPAL_IDS as readonly string[]).includes(id), {
      error: `is the broker's own name for a caller (${RESERVED_PRINCIPAL_IDS.join(", ")}); choose another`,
    }),
  sha256: z
    .string()
    .regex(
      /^[0-9a-f]{64}$/,
      "the SHA-256 of the token as 64 lowercase hex digits; `mcp-broker token create` prints it",
    ),
  scopes: z.array(ScopeSchema).min(1),
});

/** Signature algorithms a token may use: asymmetric only, so no key can double as an HMAC secret. */
export const OAUTH_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
] as const;

const OAuthSchema = z
  .strictObject({
    issuer: z
      .url({ protocol: /^https?$/ })
      .describe(
        "The authorization server, exactly as its tokens' `iss` says; its keys are found through its metadata (RFC 8414, or OpenID discovery).",
      ),
    audience: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .describe(
        "What a token's `aud` must hold (one of, for a list): the broker's resource URL (RFC 8707, such as https://broker.example.com/mcp), or what the provider writes there instead (Entra: the application ID URI api://…; Keycloak: the client an audience mapper adds).",
      ),
    resource: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        "The broker's public base URL, as clients reach it (https://broker.example.com): the `resource` of its protected resource metadata. Required when the broker listens on every interface without http.allowed_hosts; otherwise the default is the origin a request came to, among the allowed hosts.",
      ),
    jwks_url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe(
        "The issuer's JSON Web Key Set, where its metadata does not say or should not be asked.",
      ),
    scopes_claim: z
      .string()
      .regex(/^[A-Za-z0-9_:.-]+$/)
      .optional()
      .describe(
        "The claim holding the token's scopes, a dotted path for a nested one (realm_access.roles); a space-separated string or an array. Default: `scope`, else `scp`.",
      ),
    scope_map: z
      .record(z.string().min(1), z.array(ScopeSchema).min(1))
      .optional()
      .describe(
        'The broker scopes each token scope grants: {"mcp:cms": ["call:/cms/**", "tree:/cms/**"]}. Any other token scope is ignored, unless literal_scopes is true.',
      ),
    literal_scopes: z
      .boolean()
      .optional()
      .describe(
        "Let a token scope written as a broker scope (call:/cms/**) grant itself. Default false: only scope_map grants, so what an identity provider lets users put in their tokens grants nothing by accident.",
      ),
    algorithms: z
      .array(z.enum(OAUTH_ALGORITHMS))
      .min(1)
      .optional()
      .describe(
        "The signature algorithms accepted; default every one listed here (never none or HS*).",
      ),
    clock_skew_s: z
      .number()
      .min(0)
      .max(300)
      .optional()
      .describe(
        "How far `exp`, `nbf` and `iat` may be off the broker's clock; default 30. A token issued further in the future is refused.",
      ),
  })
  .describe(
    "Bearer JWTs from an OAuth 2.1 authorization server, beside (or instead of) static tokens.",
  );
export type OAuthConfig = z.infer<typeof OAuthSchema>;

const AuthSchema = z
  .strictObject({
    tokens: z.array(TokenEntrySchema).min(1).optional(),
    oauth: OAuthSchema.optional(),
  })
  .refine((auth) => auth.tokens !== undefined || auth.oauth !== undefined, {
    message: "auth needs tokens, oauth or both",
  });

const RateLimitSchema = z.strictObject({
  token: z.string().min(1).describe('A token id, or "*" for every caller.'),
  path: z.string().startsWith("/").describe("A path glob, such as /cms/**."),
  per_minute: z.number().positive(),
  burst: z
    .int()
    .positive()
    .optional()
    .describe("Calls allowed at once; default: per_minute / 6, at least 1."),
});

const SessionsSchema = z
  .strictObject({
    max: z
      .int()
      .min(1)
      .optional()
      .describe(
        "Open MCP sessions at most, over every endpoint. To make room, the token holding the most sessions gives up its least recently used idle one (or a busy one, if it holds more than its share). Default 1000.",
      ),
    max_per_principal: z
      .int()
      .min(1)
      .optional()
      .describe(
        "Open MCP sessions (and legacy SSE streams) of one token at most; its least recently used idle one is closed to make room for its next. Default: a quarter of max where callers need a token; max where none is asked (every caller is then one).",
      ),
    idle_timeout_s: z
      .number()
      .positive()
      .optional()
      .describe("A session without a request for this long is closed. Default 1800."),
  })
  .describe("Streamable HTTP sessions of /mcp and /mcp/<name>: bounded, so memory is.");

export const PINNING_MODES = ["off", "warn", "enforce"] as const;

const PinningModeSchema = z
  .enum(PINNING_MODES)
  .describe(
    "What a tool definition that changed since it was pinned (or a new tool on a pinned source, or one with suspicious text) gets: off, warn (default: logged and shown) or enforce (held out of the tree until an admin approves it).",
  );

/** `pinning` as written (a mode, or an object), with the folder of the config it was read from. */
const PinningSchema = z
  .union([
    PinningModeSchema,
    z.strictObject({
      mode: PinningModeSchema.optional(),
      store: z
        .string()
        .regex(/^(sqlite:.+|rediss?:\/\/.+|unix:.+)$/, 'expected "sqlite:PATH" or a Redis URL')
        .optional()
        .describe(
          "Where pins are kept. Default: the state store when it outlives the process (sqlite: or Redis), else a SQLite file under ~/.local/state/mcp-broker/pins/ for the config's folder.",
        ),
    }),
  ])
  .optional()
  .transform((value) => ({
    mode: (typeof value === "string" ? value : value?.mode) ?? "warn",
    store:
      typeof value === "object" && value.store !== undefined
        ? value.store.startsWith("sqlite:")
          ? `sqlite:${fromConfigFolder(value.store.slice("sqlite:".length))}`
          : value.store
        : undefined,
    configFolder: currentConfigFolder(),
  }));

const TasksSchema = z
  .strictObject({
    ttl_s: z
      .number()
      .positive()
      .optional()
      .describe("How long a task and its result are kept after it was created; default 86400."),
    answer_within_ms: z
      .int()
      .min(0)
      .max(60_000)
      .optional()
      .describe(
        "A client of MCP's Tasks extension is answered in place when the call ends within this many milliseconds, else given a task; default 1000.",
      ),
    max_result_bytes: z
      .int()
      .positive()
      .optional()
      .describe(
        "A task's result larger than this is not kept: the task fails, saying so. Default 1048576.",
      ),
    max_running_per_caller: z
      .int()
      .positive()
      .optional()
      .describe(
        "Tasks one token may have running on one instance at once; past it a new one is refused (429). Default 100.",
      ),
  })
  .describe("Calls kept as tasks: REST's Prefer: respond-async, MCP's Tasks extension, approvals.");

const ApprovalRuleSchema = z.strictObject({
  path: z.string().startsWith("/").describe("A glob over tool paths, such as /files/write_*."),
  ttl_s: z
    .number()
    .positive()
    .optional()
    .describe("How long the approval may be given after the call asked; default 900."),
  approver: z
    .enum(["scope", "caller"])
    .optional()
    .describe(
      'Who approves: "scope" (default), a person whose token has approve on the path; "caller", the person at the calling client, asked through MCP elicitation.',
    ),
});

const ApprovalsSchema = z.union([
  z.array(ApprovalRuleSchema),
  z.strictObject({
    rules: z.array(ApprovalRuleSchema).optional(),
    destructive: z
      .boolean()
      .optional()
      .describe("Also ask for approval of every tool whose annotations say destructiveHint."),
    ttl_s: z
      .number()
      .positive()
      .optional()
      .describe("The default of the rules' ttl_s (and of destructive tools'); default 900."),
    wait_s: z
      .number()
      .min(0)
      .max(3600)
      .optional()
      .describe(
        "How long a call waits for the decision before it is answered with its task; default 60.",
      ),
    self_approval: z
      .boolean()
      .optional()
      .describe("Whether an approver may approve a call of their own token; default false."),
  }),
]);

const RunSchema = z
  .strictObject({
    timeout_s: z
      .number()
      .min(1)
      .max(300)
      .optional()
      .describe("Seconds a script runs, its calls included, unless it asks for other; default 30."),
    max_calls: z
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe("Calls one script makes at most; default 100."),
    max_concurrent_calls: z
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe("Calls of one script in flight at once; more wait for one to end. Default 8."),
    memory_mb: z
      .int()
      .min(8)
      .max(1024)
      .optional()
      .describe(
        "Memory one script's engine may take, in MiB; past it the script ends (`memory`). Default 64.",
      ),
    max_result_chars: z
      .int()
      .min(1000)
      .optional()
      .describe("A longer result (as JSON) ends the script (`result_too_large`); default 1000000."),
    workers: z
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe(
        "Threads that run scripts, each taking eight runs at once; default 2. Needs a restart.",
      ),
    max_waiting: z
      .int()
      .min(1)
      .optional()
      .describe(
        "Runs waiting for a thread, all callers together; past it 503. Default 256. Needs a restart.",
      ),
    max_waiting_per_caller: z
      .int()
      .min(1)
      .optional()
      .describe("Runs one token may have waiting; past it 429. Default 16. Needs a restart."),
  })
  .describe("Scripts of meta_run: what one may spend, and how many run at once.");

const RegistrySchema = z
  .strictObject({
    mount: z
      .string()
      .regex(
        /^(\/[A-Za-z0-9_.-]+)+$/,
        'an absolute path of one or more segments, such as "/registry"',
      )
      .optional()
      .describe(
        'Where registered tools appear in the tree, as <mount>/<tool>/<function>; default "/registry".',
      ),
    health_check_interval_s: z
      .int()
      .min(1)
      .max(86_400)
      .optional()
      .describe("Seconds between health checks of each registered service; default 60."),
    allowed_hosts: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe(
        'Where registered services may be: host names (globs such as "*.svc.internal"), addresses, CIDR networks, or "*". Default: loopback only (localhost, 127.0.0.0/8, ::1).',
      ),
    max_response_bytes: z
      .int()
      .positive()
      .optional()
      .describe("The largest answer read from a registered service; default 10485760 (10 MiB)."),
    predefined: z
      .boolean()
      .optional()
      .describe(
        "Register the built-in tools (search_tool, calculator, image_generator, document_analyzer, time_tool) at start-up; default true.",
      ),
  })
  .describe("The tool registry of /rpc (tools/register, tools/call, health/check).");

/** The name of an environment variable that holds a secret, so the config need not. */
export const EnvVarName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/);

/** A duration in seconds, as the toolsets' and the registry's timeouts are given. */
export const Seconds = z.number().positive().max(600);

const ToolSearchSchema = z
  .strictObject({
    synonyms: z
      .boolean()
      .optional()
      .describe("Also find tools by WordNet synonyms of the query's words; default true."),
    embeddings: z
      .strictObject({
        url: z
          .url({
            protocol: /^https?$/,
            error: "expected an http(s) URL such as http://127.0.0.1:11434/v1/embeddings",
          })
          .describe(
            "An OpenAI-compatible embeddings endpoint, such as http://127.0.0.1:11434/v1/embeddings.",
          ),
        model: z.string().min(1).describe("The model the endpoint is asked for."),
        api_key_env: EnvVarName.optional().describe(
          "The environment variable holding the endpoint's API key, sent as a bearer.",
        ),
        timeout_s: Seconds.optional().describe("Longest one request may take; default 10."),
        weight: z
          .number()
          .positive()
          .max(10)
          .optional()
          .describe(
            "How much the ranking by meaning counts beside the words' (which count 1); default 1. A small local model does better lower, such as 0.2.",
          ),
      })
      .optional()
      .describe(
        "Rank by meaning too, fused with the word ranking; vectors are cached by content in the state store. Off when unset.",
      ),
  })
  .describe("meta_search: how tools are found.");

/** An Evolution CMS database by URL: the emcp source's and the search tool's. */
export const CmsDatabaseUrl = z
  .string()
  .regex(
    /^(sqlite:.+|mysql:\/\/.+|postgres(ql)?:\/\/.+)$/,
    "expected sqlite:PATH, mysql://… or postgres://…",
  )
  // A SQLite file is a path like any other: from the config's folder.
  .transform((url) =>
    url.startsWith("sqlite:") && url !== "sqlite::memory:"
      ? `sqlite:${fromConfigFolder(url.slice("sqlite:".length))}`
      : url,
  );

/** The prefix of an Evolution CMS site's tables. */
export const CmsTablePrefix = z
  .string()
  .regex(/^[A-Za-z0-9_]*$/)
  .describe('Default "evo_".');

/** The config's `toolsets` as the config sees them: each toolset's settings, checked by its own schema. */
export type ToolsetsSettings = Readonly<Record<string, unknown>>;

/** The whole config, around the `source` schemas of the kinds there are and the toolsets' settings. */
export function configSchema(
  sources: readonly [SourceSchema, ...SourceSchema[]],
  toolsets: z.ZodType<ToolsetsSettings>,
) {
  const kinds = sources.flatMap((s) =>
    [...(s._zod.propValues.backend ?? [])].filter((b): b is string => typeof b === "string"),
  );
  const source = z.discriminatedUnion("backend", sources, {
    // Zod's own words for an unknown discriminator ("Invalid input") say neither what nor which.
    error: (issue) => {
      if (issue.code !== "invalid_union") return undefined;
      const given = (issue.input as { backend?: unknown } | undefined)?.backend;
      const meant = typeof given === "string" ? nameMeant(given, kinds) : "";
      return `no backend ${JSON.stringify(given) ?? "given"}${meant}: a source's "backend" is one of ${kinds.join(", ")}`;
    },
  });
  const node = nodeSchema(source);
  return z.strictObject({
    $schema: z.string().optional(),
    tree: z.union([z.array(node), node]),
    expose: z
      .enum(EXPOSE_MODES)
      .optional()
      .describe("What MCP clients see: the three meta tools, every leaf as a tool, or both."),
    max_output_chars: z.int().positive().optional().describe("Default for every tool."),
    timeout: z.number().positive().optional().describe("Default seconds per call; 60 if unset."),
    render_mode: z.enum(RENDER_MODES).optional().describe("Default for every tool; mcp if unset."),
    auth: AuthSchema.optional().describe(
      "Static tokens with scopes, and/or OAuth 2.1 bearer JWTs. Without it (and without a SECRET on the command line) nothing is asked.",
    ),
    limits: LimitsSchema.optional(),
    rate_limits: z.array(RateLimitSchema).optional(),
    idempotency: z
      .strictObject({
        ttl_s: z
          .number()
          .positive()
          .optional()
          .describe("How long a key is remembered; default 86400."),
        max_result_bytes: z
          .int()
          .positive()
          .optional()
          .describe(
            "A larger result is not kept: the answer says so, and a repeat of the key is refused (409), never run again. Default 1048576.",
          ),
        max_bytes_per_token: z
          .int()
          .positive()
          .optional()
          .describe(
            "Results one token keeps at once, in bytes, per broker instance; past it they are not kept, as above. Default 67108864.",
          ),
        max_keys_per_token: z
          .int()
          .positive()
          .optional()
          .describe(
            "Results one token keeps at once, per broker instance; past it they are not kept, as above. Default 10000.",
          ),
      })
      .optional(),
    state: z
      .string()
      .regex(
        /^(memory|sqlite:.+|rediss?:\/\/.+|unix:.+)$/,
        'expected "memory", "sqlite:PATH", or a Redis\'s redis://, rediss:// or unix:///path/to/redis.sock URL',
      )
      .optional()
      .describe(
        "Where idempotency records, rate-limit buckets and the tool registry live; default memory. A Redis on the same host is faster by its Unix socket: unix:///path/to/redis.sock (?db=N&password=… may follow).",
      ),
    redact: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "More keys to remove from every result, besides password, cachepwd, verified_key, refresh_token, access_token and sessionid.",
      ),
    audit: z
      .strictObject({
        file: ConfigPath.optional().describe("Also append one JSON line per call to this file."),
        log: z
          .boolean()
          .default(true)
          .describe(
            "Write each record to the log too, as an access log (default true). false leaves the log to the broker's own events and saves 6-11% of a call's CPU; the records still go to the file, the metrics and the console.",
          ),
      })
      .optional(),
    http: z
      .strictObject({
        allowed_hosts: z
          .array(z.string().min(1))
          .optional()
          .describe(
            "Host names the broker answers to (DNS-rebinding defence). Default: localhost, 127.0.0.1, [::1] and the listen address.",
          ),
        allowed_origins: z
          .array(z.string().min(1))
          .optional()
          .describe("Origins browsers may call from. Default: loopback origins only."),
        stateless: z
          .boolean()
          .optional()
          .describe(
            "MCP endpoints without sessions, for several instances behind a load balancer: no notifications, progress or sampling.",
          ),
        resumable: z
          .boolean()
          .optional()
          .describe(
            "Keep each 2025-era session's last 1000 stream events, so that a client whose stream broke resumes it with Last-Event-ID. Off by default: it costs about a tenth of the broker's CPU per call.",
          ),
      })
      .optional(),
    sessions: SessionsSchema.optional(),
    registry: RegistrySchema.optional(),
    toolsets: toolsets.optional(),
    tool_search: ToolSearchSchema.optional(),
    run: RunSchema.optional(),
    sandbox: z
      .strictObject({
        default: SourceSandboxSchema.describe(
          "The sandbox of every stdio source that does not say its own: true, or settings.",
        ),
      })
      .optional(),
    tasks: TasksSchema.optional(),
    pinning: PinningSchema.describe(
      'Tool definitions pinned against silent change: "off", "warn" (default) or "enforce", or {"mode", "store"}.',
    ),
    approvals: ApprovalsSchema.optional().describe(
      'Calls a person approves before they run: a list of rules, or {"rules", "destructive", "ttl_s", "wait_s", "self_approval"}.',
    ),
  });
}

export type Config = z.infer<ReturnType<typeof configSchema>>;
export type ToolOverride = z.infer<typeof ToolOverrideSchema>;
export type RenderMode = (typeof RENDER_MODES)[number];
export type Limits = z.infer<typeof LimitsSchema>;
export type RunConfig = z.infer<typeof RunSchema>;
export type ApprovalsConfig = z.infer<typeof ApprovalsSchema>;
export type ApprovalRuleConfig = z.infer<typeof ApprovalRuleSchema>;
export type ScopeAction = (typeof SCOPE_ACTIONS)[number];
export type ExposeMode = (typeof EXPOSE_MODES)[number];
