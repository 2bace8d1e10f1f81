/**
 * The `tool` object of `tools/register`, with the fields the
 * protocol's message leaves open: where the service is reached
 * (`endpoint`, `health_check_url`), its declared `status`, its `version`, and
 * per function `timeout_seconds` (1–30) and `retry_count`. Objects are strict:
 * a misspelt field is refused by name rather than ignored.
 */
import { z } from "zod";
import { nestsDeeperThan } from "../contract/json-depth.js";
import { compileArgsSchema } from "../tree/args-validator.js";

export const TOOL_STATUSES = ["AVAILABLE", "UNAVAILABLE", "MAINTENANCE"] as const;
export type DeclaredStatus = (typeof TOOL_STATUSES)[number];

/** A name becomes one tree path segment and part of MCP tool names, so it keeps to their alphabet. */
const Name = z
  .string()
  .regex(
    /^[A-Za-z0-9_-]{1,64}$/,
    "use 1 to 64 letters, digits, '_' or '-' (it becomes a path segment of the tree)",
  );

/** The largest schema a function may declare, as JSON: far above any real one. */
export const MAX_SCHEMA_CHARS = 64 * 1024;
/** The deepest a function's schema may nest. */
export const MAX_SCHEMA_DEPTH = 32;

const JsonSchema = z
  .record(z.string(), z.unknown(), { error: "expected a JSON Schema object" })
  // Depth first: serializing a deeper value to measure it would recurse without end.
  .refine((schema) => !nestsDeeperThan(schema, MAX_SCHEMA_DEPTH), {
    error: `nests more than ${MAX_SCHEMA_DEPTH} levels deep; flatten it`,
    abort: true,
  })
  .refine((schema) => JSON.stringify(schema).length <= MAX_SCHEMA_CHARS, {
    error: `is larger than ${MAX_SCHEMA_CHARS} characters as JSON; describe the arguments more briefly`,
  });

const ServiceUrl = z
  .url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" })
  // zod runs this refinement even when the URL check failed, so it parses for itself.
  .refine((u) => !URL.canParse(u) || (new URL(u).username === "" && new URL(u).password === ""), {
    error: "credentials in the URL are not accepted; they would be stored and shown in the clear",
  });

export const FunctionDefinitionSchema = z.strictObject({
  name: Name,
  description: z.string().max(4096).default(""),
  parameters: JsonSchema.default({ type: "object" }),
  returns: JsonSchema.optional(),
  timeout_seconds: z
    .number()
    .min(1)
    .max(30)
    .optional()
    .describe("Seconds before a call is cancelled with -32005, unless the call sets `timeout`."),
  retry_count: z
    .int()
    .min(0)
    .max(5)
    .default(0)
    .describe("Retries of a call the service could not be reached for (never after it answered)."),
});

export const ToolDefinitionSchema = z.strictObject({
  name: Name,
  description: z.string().max(4096).default(""),
  category: z.string().min(1).max(64).default("GENERAL"),
  version: z.string().min(1).max(64).optional(),
  status: z.enum(TOOL_STATUSES).default("AVAILABLE"),
  endpoint: ServiceUrl.describe("Where the broker forwards `tools/call`, as JSON-RPC over HTTP."),
  health_check_url: ServiceUrl.optional().describe(
    "Where the broker sends `health/check`; default: the endpoint.",
  ),
  functions: z.array(FunctionDefinitionSchema).min(1, "a tool has at least one function").max(256),
});

export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;
/** A tool as the registry serves it: a registered one, or one built into the broker (no endpoint). */
export type ServiceDefinition = Omit<ToolDefinition, "endpoint"> & { readonly endpoint?: string };
export type FunctionDefinition = z.infer<typeof FunctionDefinitionSchema>;

/**
 * Problems a schema cannot see: function names twice, parameter schemas that
 * are not JSON Schema of an object, or do not compile. Empty when fine.
 */
export function definitionProblems(tool: ToolDefinition): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  tool.functions.forEach((fn, i) => {
    const where = `tool.functions[${i}]`;
    if (seen.has(fn.name)) problems.push(`${where}.name: "${fn.name}" is defined twice`);
    seen.add(fn.name);
    if (fn.parameters.type !== undefined && fn.parameters.type !== "object") {
      problems.push(
        `${where}.parameters: must describe an object of named arguments ("type": "object"), not ${JSON.stringify(fn.parameters.type)}`,
      );
    }
    for (const field of ["parameters", "returns"] as const) {
      const schema = fn[field];
      if (schema === undefined) continue;
      try {
        const { unchecked } = compileArgsSchema(schema);
        if (unchecked !== undefined) {
          problems.push(`${where}.${field}: cannot be checked by the broker: ${unchecked}`);
        }
      } catch (err) {
        problems.push(`${where}.${field}: not a valid JSON Schema: ${(err as Error).message}`);
      }
    }
  });
  return problems;
}
