import type { Tool } from "@modelcontextprotocol/server";
import type { Operation, Parameter } from "./operations.js";

/** Keywords of OpenAPI's schema object that are not JSON Schema: left out of a tool's schema. */
const OPENAPI_ONLY = new Set(["discriminator", "xml", "externalDocs", "example"]);
/** Deeper than this, a schema is "any value": a tool's schema is read by a model, not a parser. */
const MAX_DEPTH = 24;

/** Where each argument of a tool goes in the request. */
export type ArgumentPlace =
  { readonly in: "body" } | { readonly in: Parameter["in"]; readonly parameter: Parameter };

export interface OperationTool {
  readonly tool: Tool;
  /** By argument name. */
  readonly places: ReadonlyMap<string, ArgumentPlace>;
}

/**
 * An operation as a tool: one argument per parameter (named as the
 * parameter, or `<in>_<name>` where two places share a name), and `body`
 * for the request body, each with its schema from the document, copied
 * without cycles (a recursive schema is cut where it would repeat) and
 * without OpenAPI's own keywords.
 */
export function operationTool(operation: Operation): OperationTool {
  const places = new Map<string, ArgumentPlace>();
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const counts = new Map<string, number>();
  for (const p of operation.parameters) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
  for (const parameter of operation.parameters) {
    let name =
      (counts.get(parameter.name) ?? 0) > 1 ? `${parameter.in}_${parameter.name}` : parameter.name;
    while (places.has(name)) name = `${parameter.in}_${name}`;
    places.set(name, { in: parameter.in, parameter });
    const schema = acyclic(parameter.schema) as Record<string, unknown>;
    properties[name] = parameter.description
      ? { ...schema, description: parameter.description }
      : schema;
    if (parameter.required) required.push(name);
  }
  if (operation.body) {
    let name = "body";
    while (places.has(name)) name = `request_${name}`;
    places.set(name, { in: "body" });
    properties[name] = acyclic(operation.body.schema);
    if (operation.body.required) required.push(name);
  }
  const read = operation.method === "GET" || operation.method === "HEAD";
  return {
    places,
    tool: {
      name: operation.name,
      title: operation.title,
      description: operation.description,
      inputSchema: {
        type: "object",
        // Copied from the document's JSON: JSON values all through.
        properties: properties as Tool["inputSchema"]["properties"],
        ...(required.length > 0 ? { required } : {}),
      },
      annotations: {
        readOnlyHint: read,
        destructiveHint: operation.method === "DELETE",
        idempotentHint: read || operation.method === "PUT" || operation.method === "DELETE",
        openWorldHint: true,
      },
    },
  };
}

/** Keywords whose value maps names to schemas: their keys are names, not keywords. */
const NAMED_SCHEMAS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);

/** A copy of a schema without cycles, OpenAPI-only keywords, or depth past MAX_DEPTH. */
export function acyclic(schema: unknown, ancestors: object[] = [], names = false): unknown {
  if (schema === null || typeof schema !== "object") return schema;
  // Cut where the schema would repeat: a map of names (its `properties`) as none, a schema as any.
  if (ancestors.includes(schema) || ancestors.length >= MAX_DEPTH)
    return names
      ? {}
      : Array.isArray(schema)
        ? []
        : { description: "(recursive: any value of the type above)" };
  const within = [...ancestors, schema];
  if (Array.isArray(schema)) return schema.map((item) => acyclic(item, within));
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!names && (OPENAPI_ONLY.has(key) || key.startsWith("x-"))) continue;
    out[key] = acyclic(value, within, !names && NAMED_SCHEMAS.has(key));
  }
  return out;
}
