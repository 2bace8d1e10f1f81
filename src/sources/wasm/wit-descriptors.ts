/**
 * WIT descriptors of `wasix:mcp/router` (tools, resources, prompts,
 * capabilities) as MCP's. A component's JSON is parsed here: a schema that is
 * not JSON, or not an object schema, is reported, never passed on.
 */
import type { Prompt, Resource, ServerCapabilities, Tool } from "@modelcontextprotocol/server";
import { isJsonObject } from "../../contract/json-text.js";
import { annotationsFromWit } from "./wit-content.js";
import type * as Wit from "./wit/router-types.js";

/** `_meta` keys for what the WIT says of a tool and MCP has no field for. */
export const META_PREFIX = "wasix.mcp/";

export type ToolMapping = { tool: Tool } | { name: string; problem: string };

/** A WIT `value` holding a JSON Schema for an object, or what is wrong with it. */
function objectSchema(value: Wit.Value, what: string): Tool["inputSchema"] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.json);
  } catch (err) {
    return `its ${what} is not valid JSON (${(err as Error).message})`;
  }
  if (!isJsonObject(parsed)) return `its ${what} is not a JSON object`;
  if (parsed.type !== "object") return `its ${what} does not have "type": "object"`;
  return parsed as Tool["inputSchema"];
}

export function toolFromWit(t: Wit.Tool): ToolMapping {
  const inputSchema = objectSchema(t.inputSchema, "input-schema");
  if (typeof inputSchema === "string") return { name: t.name, problem: inputSchema };
  const tool: Tool = { name: t.name, description: t.description, inputSchema };
  if (t.outputSchema) {
    const outputSchema = objectSchema(t.outputSchema, "output-schema");
    if (typeof outputSchema === "string") return { name: t.name, problem: outputSchema };
    tool.outputSchema = outputSchema as Tool["outputSchema"];
  }
  const meta: Record<string, unknown> = {};
  if (t.annotations) {
    const { readOnly, destructive, streaming, experimental } = t.annotations;
    const annotations: NonNullable<Tool["annotations"]> = {};
    if (readOnly !== undefined) annotations.readOnlyHint = readOnly;
    if (destructive !== undefined) annotations.destructiveHint = destructive;
    if (Object.keys(annotations).length > 0) tool.annotations = annotations;
    if (streaming !== undefined) meta[`${META_PREFIX}streaming`] = streaming;
    if (experimental !== undefined) meta[`${META_PREFIX}experimental`] = experimental;
  }
  if (t.meta) meta[`${META_PREFIX}meta`] = t.meta;
  if (Object.keys(meta).length > 0) tool._meta = meta;
  return { tool };
}

export function resourceFromWit(r: Wit.McpResource): Resource {
  const resource: Resource = { uri: r.uri, name: r.name, mimeType: r.mimeType };
  if (r.description !== undefined) resource.description = r.description;
  const annotations = annotationsFromWit(r.annotations);
  if (annotations) resource.annotations = annotations;
  return resource;
}

export function promptFromWit(p: Wit.Prompt): Prompt {
  const prompt: Prompt = { name: p.name };
  if (p.description !== undefined) prompt.description = p.description;
  if (p.arguments)
    prompt.arguments = p.arguments.map((a) => {
      const argument: NonNullable<Prompt["arguments"]>[number] = { name: a.name };
      if (a.description !== undefined) argument.description = a.description;
      if (a.required !== undefined) argument.required = a.required;
      return argument;
    });
  return prompt;
}

/**
 * The component's capabilities as MCP's. Tools are always served. Nothing is
 * `listChanged` or `subscribe`: the WIT has no way for a component to notify.
 */
export function capabilitiesFromWit(c: Wit.ServerCapabilities): ServerCapabilities {
  const capabilities: ServerCapabilities = { tools: {} };
  if (c.resources) capabilities.resources = {};
  if (c.prompts) capabilities.prompts = {};
  if (c.completions?.enabled) capabilities.completions = {};
  return capabilities;
}
