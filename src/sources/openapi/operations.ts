import picomatch from "picomatch";
import type { HttpMethod } from "../../net/guarded-request.js";
import type { OpenApiDocument } from "./load-document.js";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const NAME_LENGTH = 64;

/** A parameter of an operation, as the document gives it (3.1: style and explode explicit or not). */
export interface Parameter {
  readonly name: string;
  readonly in: "path" | "query" | "header" | "cookie";
  readonly required: boolean;
  readonly description?: string;
  readonly schema: unknown;
  readonly style?: string;
  readonly explode?: boolean;
}

/** One operation of the document: one tool. */
export interface Operation {
  /** The tool's name: the operationId, or the method and path, within the tool name rules. */
  readonly name: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly title: string;
  readonly description: string;
  readonly parameters: readonly Parameter[];
  readonly body?: {
    readonly required: boolean;
    readonly mediaType: string;
    readonly schema: unknown;
  };
}

/** What a request body may be sent as: JSON, form fields, or text. */
const BODY_TYPES = [
  /^application\/(.+\+)?json$/,
  /^application\/x-www-form-urlencoded$/,
  /^text\/plain$/,
];

/**
 * The document's operations that `patterns` allow (globs over the
 * operationId or "METHOD /path", "!" leaving out), each with a tool name of
 * its own. `warn` hears of an operation left out and why.
 */
export function operationsOf(
  document: OpenApiDocument,
  patterns: readonly string[] | undefined,
  warn: (message: string) => void,
): Operation[] {
  const allowed = operationFilter(patterns ?? []);
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  const taken = new Set<string>();
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (item === null || typeof item !== "object") continue;
    const shared = asParameters(item.parameters);
    for (const method of METHODS) {
      const operation = item[method] as Record<string, unknown> | undefined;
      if (operation === null || typeof operation !== "object") continue;
      const operationId =
        typeof operation.operationId === "string" ? operation.operationId : undefined;
      const route = `${method.toUpperCase()} ${path}`;
      if (!allowed([operationId, route])) continue;
      const body = bodyOf(operation.requestBody);
      if (body === "unsupported") {
        warn(
          `${route}: left out, its request body is of no type the broker sends (JSON, form fields, text)`,
        );
        continue;
      }
      const summary = typeof operation.summary === "string" ? operation.summary : "";
      const description = typeof operation.description === "string" ? operation.description : "";
      out.push({
        name: uniqueName(operationId ?? `${method}${path}`, taken),
        method: method.toUpperCase() as HttpMethod,
        path,
        title: summary || route,
        description: [summary, description, `(${route})`].filter(Boolean).join(" "),
        parameters: merged(shared, asParameters(operation.parameters)),
        ...(body ? { body } : {}),
      });
    }
  }
  return out;
}

function operationFilter(patterns: readonly string[]): (names: (string | undefined)[]) => boolean {
  const positive = patterns.filter((p) => !p.startsWith("!"));
  const negative = patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1));
  const allow = positive.length > 0 ? picomatch(positive, { dot: true }) : undefined;
  const deny = negative.length > 0 ? picomatch(negative, { dot: true }) : undefined;
  return (names) => {
    const given = names.filter((n): n is string => n !== undefined);
    if (deny && given.some((n) => deny(n))) return false;
    return !allow || given.some((n) => allow(n));
  };
}

function asParameters(value: unknown): Parameter[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((p: Record<string, unknown>) => {
    if (p === null || typeof p !== "object" || typeof p.name !== "string") return [];
    if (!["path", "query", "header", "cookie"].includes(p.in as string)) return [];
    return [
      {
        name: p.name,
        in: p.in as Parameter["in"],
        // A path parameter is always required (OpenAPI says so, whatever the document says).
        required: p.in === "path" || p.required === true,
        ...(typeof p.description === "string" ? { description: p.description } : {}),
        schema: p.schema ?? schemaOfContent(p.content) ?? {},
        ...(typeof p.style === "string" ? { style: p.style } : {}),
        ...(typeof p.explode === "boolean" ? { explode: p.explode } : {}),
      },
    ];
  });
}

/** The path item's parameters, with the operation's own taking the place of one of the same name and place. */
function merged(shared: Parameter[], own: Parameter[]): Parameter[] {
  const key = (p: Parameter) => `${p.in}\0${p.name}`;
  const owned = new Set(own.map(key));
  return [...shared.filter((p) => !owned.has(key(p))), ...own];
}

function bodyOf(value: unknown): Operation["body"] | "unsupported" | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const body = value as { required?: unknown; content?: Record<string, { schema?: unknown }> };
  const types = Object.keys(body.content ?? {});
  if (types.length === 0) return undefined;
  const mediaType = BODY_TYPES.map((t) => types.find((m) => t.test(m))).find(
    (m) => m !== undefined,
  );
  if (mediaType === undefined) return "unsupported";
  return {
    required: body.required === true,
    mediaType,
    schema: body.content![mediaType]!.schema ?? {},
  };
}

function schemaOfContent(content: unknown): unknown {
  if (content === null || typeof content !== "object") return undefined;
  return (Object.values(content)[0] as { schema?: unknown } | undefined)?.schema;
}

function uniqueName(wanted: string, taken: Set<string>): string {
  const base =
    wanted
      .replace(/[^A-Za-z0-9_.-]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, NAME_LENGTH) || "operation";
  let name = base;
  for (let i = 2; taken.has(name); i++)
    name = `${base.slice(0, NAME_LENGTH - String(i).length - 1)}_${i}`;
  taken.add(name);
  return name;
}
