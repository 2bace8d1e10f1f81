import { lastSegment } from "./path.js";
import type { ToolEntry } from "./tree.js";

/** Deeper schemas are `unknown` past this: a declaration is for reading, not for every detail. */
const MAX_DEPTH = 6;
/** Tools declared at most, and the longest doc comment. */
const MAX_TOOLS = 200;
const MAX_DOC_CHARS = 300;

/** A JSON Schema as a tool's `inputSchema` or `outputSchema` holds it: untrusted JSON. */
type Schema = unknown;

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * The tools under a node as TypeScript declarations of `meta_run`'s `tools`
 * object: each tool a method at its path, its argument type from its
 * `inputSchema`, its result from its `outputSchema` (else content blocks),
 * its description as a doc comment. The compact API a model writes a script
 * against. Schemas are printed, never resolved: a `$ref` is `unknown`, so
 * nothing is fetched or read; depth, tools and comments are bounded.
 */
export function typescriptDeclarations(tools: readonly DeclaredTool[]): string {
  const root: Branch = new Map();
  for (const tool of tools.slice(0, MAX_TOOLS)) {
    const segments = tool.path.split("/").filter((s) => s !== "");
    let branch = root;
    for (const segment of segments.slice(0, -1)) {
      const next = branch.get(segment);
      if (next instanceof Map) branch = next;
      else {
        const made: Branch = new Map();
        branch.set(segment, made);
        branch = made;
      }
    }
    branch.set(segments.at(-1) ?? tool.toolName, tool);
  }
  const lines = [
    "/** What a tool without an outputSchema resolves to: its content blocks. */",
    'type ContentBlock = { type: "text"; text: string } | { type: string; [key: string]: unknown };',
    "",
    `declare const tools: ${printBranch(root, "")};`,
  ];
  if (tools.length > MAX_TOOLS)
    lines.push(`// ${tools.length - MAX_TOOLS} more tools are not shown; describe a smaller node.`);
  return lines.join("\n") + "\n";
}

/**
 * Each tool's signature, made once: a tree's entries never change (a new
 * tree has new ones), and searches with schemas and refused arguments ask
 * for the same tools again and again.
 */
const signatures = new WeakMap<DeclaredTool, string>();

/**
 * One tool as a method of `tools`, as `typescriptDeclarations` declares it,
 * without its doc comment: what a search hit says of how to call it.
 *
 * @example
 * typescriptSignature(sum) // 'get-sum(args: {\n  a: number;\n  b: number;\n}): Promise<ContentBlock[]>;'
 */
export function typescriptSignature(tool: DeclaredTool): string {
  let signature = signatures.get(tool);
  if (signature === undefined) {
    signature = printTool(lastSegment(tool.path) || tool.toolName, tool, "", false);
    signatures.set(tool, signature);
  }
  return signature;
}

/** What a declaration says of a tool. */
export type DeclaredTool = Pick<
  ToolEntry,
  "path" | "toolName" | "summary" | "description" | "tool"
>;

type Branch = Map<string, Branch | DeclaredTool>;

function printBranch(branch: Branch, indent: string): string {
  const inner = indent + "  ";
  const members = [...branch].map(([name, entry]) =>
    entry instanceof Map
      ? `${inner}${key(name)}: ${printBranch(entry, inner)};`
      : printTool(name, entry, inner),
  );
  return `{\n${members.join("\n")}\n${indent}}`;
}

function printTool(name: string, tool: DeclaredTool, indent: string, withDoc = true): string {
  const args = typeOf(tool.tool.inputSchema, indent, 0);
  const result = tool.tool.outputSchema
    ? typeOf(tool.tool.outputSchema, indent, 0)
    : "ContentBlock[]";
  const optional = requiredKeys(tool.tool.inputSchema).length === 0 ? "?" : "";
  const comment = withDoc ? doc(tool.description || tool.summary, indent) : "";
  return `${comment}${indent}${key(name)}(args${optional}: ${args}): Promise<${result}>;`;
}

function typeOf(schema: Schema, indent: string, depth: number): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return "unknown";
  if (depth > MAX_DEPTH) return "unknown";
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return union(s.enum.map(literal));
  if ("const" in s) return literal(s.const);
  if (Array.isArray(s.anyOf)) return union(s.anyOf.map((x) => typeOf(x, indent, depth + 1)));
  if (Array.isArray(s.oneOf)) return union(s.oneOf.map((x) => typeOf(x, indent, depth + 1)));
  if (Array.isArray(s.allOf))
    return s.allOf.map((x) => wrap(typeOf(x, indent, depth + 1))).join(" & ") || "unknown";
  const types = Array.isArray(s.type) ? s.type : [s.type];
  return union(types.map((type) => typeOfType(type, s, indent, depth)));
}

function typeOfType(
  type: unknown,
  s: Record<string, unknown>,
  indent: string,
  depth: number,
): string {
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      if (Array.isArray(s.prefixItems))
        return `[${s.prefixItems.map((x) => typeOf(x, indent, depth + 1)).join(", ")}]`;
      return `${wrap(typeOf(s.items, indent, depth + 1))}[]`;
    case "object":
      return objectType(s, indent, depth);
    default:
      return s.properties !== undefined ? objectType(s, indent, depth) : "unknown";
  }
}

function objectType(s: Record<string, unknown>, indent: string, depth: number): string {
  const properties =
    typeof s.properties === "object" && s.properties !== null && !Array.isArray(s.properties)
      ? Object.entries(s.properties)
      : [];
  const extra = s.additionalProperties;
  if (properties.length === 0) {
    if (extra === false) return "{}";
    return `Record<string, ${typeof extra === "object" ? typeOf(extra, indent, depth + 1) : "unknown"}>`;
  }
  const required = new Set(requiredKeys(s));
  const inner = indent + "  ";
  const members = properties.map(([name, property]) => {
    const description =
      typeof property === "object" && property !== null
        ? (property as { description?: unknown }).description
        : undefined;
    return `${doc(description, inner)}${inner}${key(name)}${required.has(name) ? "" : "?"}: ${typeOf(property, inner, depth + 1)};`;
  });
  if (typeof extra === "object" && extra !== null)
    members.push(`${inner}[key: string]: ${typeOf(extra, inner, depth + 1)} | undefined;`);
  return `{\n${members.join("\n")}\n${indent}}`;
}

function requiredKeys(schema: Schema): string[] {
  const required = (schema as { required?: unknown } | null)?.required;
  return Array.isArray(required) ? required.filter((k): k is string => typeof k === "string") : [];
}

function union(members: string[]): string {
  const distinct = [...new Set(members)];
  return distinct.length === 0 ? "unknown" : distinct.join(" | ");
}

/** A type in parentheses where a `|` or `&` outside its braces would bind wrongly (`(A | B)[]`). */
function wrap(type: string): string {
  let depth = 0;
  for (const char of type) {
    if ("{[(<".includes(char)) depth++;
    else if ("}])>".includes(char)) depth--;
    else if (depth === 0 && (char === "|" || char === "&")) return `(${type})`;
  }
  return type;
}

function literal(value: unknown): string {
  return value === null || ["string", "number", "boolean"].includes(typeof value)
    ? JSON.stringify(value)
    : "unknown";
}

function key(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function doc(text: unknown, indent: string): string {
  if (typeof text !== "string" || text.trim() === "") return "";
  const short = text.length > MAX_DOC_CHARS ? `${text.slice(0, MAX_DOC_CHARS)}…` : text;
  const lines = short.replaceAll("*/", "*\\/").split("\n");
  return lines.length === 1
    ? `${indent}/** ${lines[0]} */\n`
    : `${indent}/**\n${lines.map((l) => `${indent} * ${l}`).join("\n")}\n${indent} */\n`;
}
