/**
 * The config format, as zod schemas: one definition gives the TypeScript types,
 * the validation with JSON-path messages, and the exported `config.schema.json`.
 * Objects are strict so that a misspelt key is an error, not a silent default.
 */
import { z } from "zod";

export const RENDER_MODES = ["mcp", "text", "json"] as const;
export const EXPOSE_MODES = ["meta", "flat", "both"] as const;

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

export const SourceSchema = z.discriminatedUnion("backend", [StdioSourceSchema, HttpSourceSchema]);

export interface NodeConfig {
  path: string;
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
  }),
);

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
export type ToolOverride = z.infer<typeof ToolOverrideSchema>;
export type RenderMode = (typeof RENDER_MODES)[number];
export type ExposeMode = (typeof EXPOSE_MODES)[number];
