/**
 * The config format, as zod schemas: one definition gives the TypeScript types,
 * the validation with JSON-path messages, and the exported `config.schema.json`.
 * Objects are strict so that a misspelt key is an error, not a silent default.
 */
import { z } from "zod";
import { MODEL_NAMES } from "../toolsets/emcp/models.js";

export const RENDER_MODES = ["mcp", "text", "json"] as const;
export const EXPOSE_MODES = ["meta", "flat", "both"] as const;

export const SCOPE_ACTIONS = ["tree", "describe", "call", "register", "admin"] as const;

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
      .describe("A serialized result above this: 413."),
    timeout_s: z.number().positive().optional().describe("Seconds before a call is cancelled."),
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

const mountFields = {
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
};

const StdioSourceSchema = z.strictObject({
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
  cwd: z.string().optional(),
  ...mountFields,
});

const HttpSourceSchema = z.strictObject({
  backend: z.literal("http"),
  url: z
    .url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" })
    .describe("The Streamable HTTP endpoint of a remote MCP server."),
  headers: z
    .record(z.string(), z.string())
    .optional()
    .describe("Sent with every request, such as Authorization; ${ENV} works here too."),
  ...mountFields,
});

const EmcpSourceSchema = z.strictObject({
  backend: z.literal("emcp"),
  database: z
    .string()
    .regex(
      /^(sqlite:.+|mysql:\/\/.+|postgres(ql)?:\/\/.+)$/,
      "expected sqlite:PATH, mysql://… or postgres://…",
    )
    .describe("The Evolution CMS database, read-only; ${ENV} works for credentials."),
  table_prefix: z
    .string()
    .regex(/^[A-Za-z0-9_]*$/)
    .optional()
    .describe('Default "evo_".'),
  max_result_items: z.int().positive().optional().describe("The largest limit; default 100."),
  max_offset: z.int().nonnegative().optional().describe("The largest offset; default 5000."),
  max_depth: z.int().positive().optional().describe("The deepest depth; default 6."),
  models: z
    .array(z.enum(MODEL_NAMES))
    .min(1)
    .optional()
    .describe("Narrows the models evo.model.* may read; default all of them."),
  ...mountFields,
});

const ENV_NAME = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name");

export const CommandToolSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, _ . - (at most 64)"),
    description: z.string().optional(),
    argv: z
      .array(z.string().min(1))
      .min(1)
      .describe("The program and its fixed arguments; never run by a shell."),
    input_schema: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("JSON Schema of the arguments; default: no arguments."),
    arguments: z
      .record(z.string(), z.array(z.string().min(1)))
      .optional()
      .describe('Per argument, the argv elements it adds; "{value}" is the value, one element.'),
    max_bytes: z.int().positive().optional().describe("stdout read at most; default 1 MiB."),
    timeout_ms: z.int().positive().optional().describe("Default 30000."),
    cwd: z.string().optional(),
    env: z.array(ENV_NAME).optional().describe("Variables passed through; nothing else is."),
  })
  .superRefine((tool, ctx) => {
    const properties = (tool.input_schema?.properties ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(tool.arguments ?? {})) {
      if (!(name in properties))
        ctx.addIssue({
          code: "custom",
          path: ["arguments", name],
          message: `argument '${name}' is not a property of input_schema`,
        });
    }
    for (const name of Object.keys(properties)) {
      if (!(name in (tool.arguments ?? {})))
        ctx.addIssue({
          code: "custom",
          path: ["input_schema", "properties", name],
          message: `property '${name}' has no argv mapping in arguments`,
        });
    }
  });

/** The presets in the package's `presets/` folder. */
export const COMMAND_PRESETS = ["ctxt"] as const;

const CommandSourceSchema = z.strictObject({
  backend: z.literal("command"),
  tools: z
    .array(CommandToolSchema)
    .min(1)
    .optional()
    .describe("The closed list of commands served as tools (or a preset's)."),
  preset: z
    .enum(COMMAND_PRESETS)
    .optional()
    .describe("A ready list of tools from the package's presets/ folder, instead of tools."),
  program: z
    .string()
    .min(1)
    .optional()
    .describe("With a preset: the program its command lines run; default the preset's."),
  cwd: z.string().optional().describe("Working directory of every tool without its own."),
  network: z
    .boolean()
    .optional()
    .describe("false: run the commands without network access (Linux: unshare -rn)."),
  env: z.array(ENV_NAME).optional().describe("Variables passed through to every tool."),
  max_bytes: z.int().positive().optional(),
  timeout_ms: z.int().positive().optional(),
  ...mountFields,
});

const CheckedCommandSourceSchema = CommandSourceSchema.superRefine((source, ctx) => {
  if ((source.tools === undefined) === (source.preset === undefined))
    ctx.addIssue({ code: "custom", message: "a command source has either tools or a preset" });
  if (source.program !== undefined && source.preset === undefined)
    ctx.addIssue({
      code: "custom",
      path: ["program"],
      message: "program applies to a preset; write the program in each tool's argv",
    });
});

const WasmSourceSchema = z.strictObject({
  backend: z.literal("wasm"),
  component: z
    .string()
    .min(1)
    .describe("Path to a .wasm component that exports wasix:mcp/router@25.3.26."),
  permissions: z
    .strictObject({
      dirs: z
        .record(z.string(), z.string().min(1))
        .superRefine((dirs, ctx) => {
          for (const guest of Object.keys(dirs))
            if (!guest.startsWith("/"))
              ctx.addIssue({
                code: "custom",
                path: [guest],
                message: `guest path "${guest}" is not absolute; write it as "/${guest}"`,
              });
        })
        .optional()
        .describe('Guest path → host folder, such as {"/data": "./data"}; none by default.'),
      env: z.array(ENV_NAME).optional().describe("Variables the component sees; none by default."),
      network: z.boolean().optional().describe("true: outgoing sockets and HTTP; default false."),
    })
    .optional()
    .describe("What the component may reach; by default nothing on the host."),
  timeout_ms: z
    .int()
    .positive()
    .optional()
    .describe("Longest a call may run in the component before it is stopped; default 10000."),
  max_memory_mb: z
    .int()
    .min(16)
    .max(4096)
    .optional()
    .describe("Memory of one instance, WebAssembly and JavaScript heap each; default 256."),
  cache_dir: z
    .string()
    .min(1)
    .optional()
    .describe("Where transpiled components are kept; default ~/.cache/mcp-broker/wasm."),
  instances: z
    .int()
    .min(1)
    .max(64)
    .optional()
    .describe("Instances serving calls in parallel, each with its own state; default 1."),
  ...mountFields,
});

export const SourceSchema = z.discriminatedUnion("backend", [
  StdioSourceSchema,
  HttpSourceSchema,
  EmcpSourceSchema,
  CheckedCommandSourceSchema,
  WasmSourceSchema,
]);

export interface NodeConfig {
  path: string;
  limits?: z.infer<typeof LimitsSchema> | undefined;
  type?: "node" | undefined;
  summary?: string | undefined;
  description?: string | undefined;
  children?: NodeConfig[] | undefined;
  source?: SourceConfig | undefined;
}

export const NodeSchema: z.ZodType<NodeConfig> = z.lazy(() =>
  z.strictObject({
    path: z.string().min(1).describe("Absolute (/a/b) or relative to the parent node."),
    type: z.literal("node").optional(),
    summary: z.string().optional(),
    description: z.string().optional(),
    children: z.array(NodeSchema).optional(),
    source: SourceSchema.optional(),
    limits: LimitsSchema.optional(),
  }),
);

const ScopeSchema = z
  .string()
  .regex(
    /^(tree|describe|call|register|admin|\*):\/\S*$/,
    'a scope is ACTION:PATH-GLOB, ACTION one of tree, describe, call, register, admin or *, such as "call:/cms/**"',
  );

export const TokenEntrySchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.-]+$/, "an id is letters, digits, _ . -"),
  sha256: z
    .string()
    .regex(
      /^[0-9a-f]{64}$/,
      "the SHA-256 of the token as 64 lowercase hex digits; `mcp-broker token create` prints it",
    ),
  scopes: z.array(ScopeSchema).min(1),
});

const AuthSchema = z.strictObject({ tokens: z.array(TokenEntrySchema).min(1) });

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

export const ConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  tree: z.union([z.array(NodeSchema), NodeSchema]),
  expose: z
    .enum(EXPOSE_MODES)
    .optional()
    .describe("What MCP clients see: the three meta tools, every leaf as a tool, or both."),
  max_output_chars: z.int().positive().optional().describe("Default for every tool."),
  timeout: z.number().positive().optional().describe("Default seconds per call; 60 if unset."),
  render_mode: z.enum(RENDER_MODES).optional().describe("Default for every tool; mcp if unset."),
  auth: AuthSchema.optional().describe(
    "Tokens with scopes. Without it (and without a SECRET on the command line) nothing is asked.",
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
    })
    .optional(),
  state: z
    .string()
    .regex(
      /^(memory|sqlite:.+|rediss?:\/\/.+)$/,
      'expected "memory", "sqlite:PATH" or a redis:// URL',
    )
    .optional()
    .describe("Where idempotency records and rate-limit buckets live; default memory."),
  redact: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "More keys to remove from every result, besides password, cachepwd, verified_key, refresh_token, access_token and sessionid.",
    ),
  audit: z
    .strictObject({
      file: z.string().optional().describe("Also append one JSON line per call to this file."),
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
    })
    .optional(),
});

export type Config = z.infer<typeof ConfigSchema>;
export type SourceConfig = z.infer<typeof SourceSchema>;
export type StdioSourceConfig = z.infer<typeof StdioSourceSchema>;
export type HttpSourceConfig = z.infer<typeof HttpSourceSchema>;
export type EmcpSourceConfig = z.infer<typeof EmcpSourceSchema>;
export type CommandSourceConfig = z.infer<typeof CommandSourceSchema>;
export type WasmSourceConfig = z.infer<typeof WasmSourceSchema>;
export type ToolOverride = z.infer<typeof ToolOverrideSchema>;
export type RenderMode = (typeof RENDER_MODES)[number];
export type Limits = z.infer<typeof LimitsSchema>;
export type ScopeAction = (typeof SCOPE_ACTIONS)[number];
export type ExposeMode = (typeof EXPOSE_MODES)[number];
