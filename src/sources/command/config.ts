/** The `source` fields of local commands served as tools. */
import { z } from "zod";
import { ConfigPath, WorkingDirectory } from "../../config/config-folder.js";
import { mountFields } from "../../config/schema.js";
import { ENV_NAME } from "../../config/env-name.js";
import { SourceSandboxSchema } from "../../config/sandbox-schema.js";

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
    output: z
      .enum(["json", "text"])
      .optional()
      .describe(
        'What stdout is: "json" (the default: the structured result, an error when it is not JSON) or "text" (passed through as the result\'s text).',
      ),
    max_bytes: z.int().positive().optional().describe("stdout read at most; default 1 MiB."),
    timeout_ms: z.int().positive().optional().describe("Default 30000."),
    cwd: ConfigPath.optional(),
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

const CommandFieldsSchema = z.strictObject({
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
  cwd: WorkingDirectory.describe(
    "Working directory of every tool without its own; relative to the config file's folder, which is the default.",
  ),
  network: z
    .boolean()
    .optional()
    .describe("false: run the commands without network access (Linux: unshare -rn)."),
  sandbox: SourceSandboxSchema,
  env: z.array(ENV_NAME).optional().describe("Variables passed through to every tool."),
  max_bytes: z.int().positive().optional(),
  timeout_ms: z.int().positive().optional(),
  ...mountFields,
});

export const CommandSourceSchema = CommandFieldsSchema.superRefine((source, ctx) => {
  if ((source.tools === undefined) === (source.preset === undefined))
    ctx.addIssue({ code: "custom", message: "a command source has either tools or a preset" });
  if (source.network !== undefined && source.sandbox)
    ctx.addIssue({
      code: "custom",
      path: ["network"],
      message:
        'a sandboxed command has the network its sandbox gives (sandbox.network, default "none"); take network out',
    });
  if (source.program !== undefined && source.preset === undefined)
    ctx.addIssue({
      code: "custom",
      path: ["program"],
      message: "program applies to a preset; write the program in each tool's argv",
    });
});

export type CommandSourceConfig = z.infer<typeof CommandSourceSchema>;
