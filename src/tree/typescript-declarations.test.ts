import fc from "fast-check";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import type { Tool } from "@modelcontextprotocol/server";
import { typescriptDeclarations, type DeclaredTool } from "./typescript-declarations.js";
import { fuzzRuns } from "../../test/helpers/fuzz.js";

function toolEntry(
  path: string,
  tool: { description?: string; inputSchema?: object; outputSchema?: object },
): DeclaredTool {
  return {
    path,
    toolName: path.split("/").at(-1) ?? "",
    summary: "",
    description: tool.description ?? "",
    tool: {
      name: "t",
      inputSchema: (tool.inputSchema ?? { type: "object" }) as Tool["inputSchema"],
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool["outputSchema"] } : {}),
    },
  };
}

/** Syntax errors of a declaration file, as the TypeScript compiler finds them. */
function syntaxErrors(text: string): string[] {
  const out = ts.transpileModule(text, {
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022 },
    fileName: "tools.ts",
  });
  return (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/** JSON Schemas of every shape the printer knows, nested, and JSON that is no schema at all. */
const schemas = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small" },
    fc.record(
      {
        type: fc.constantFrom(
          "string",
          "number",
          "integer",
          "boolean",
          "null",
          "array",
          "object",
          "odd",
        ),
        description: fc.string(),
      },
      { requiredKeys: ["type"] },
    ),
    fc.record({ enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }) }),
    fc.record({ const: fc.jsonValue({ maxDepth: 1 }) }),
    fc.record({ type: fc.constant("array"), items: tie("schema") }),
    fc.record({
      type: fc.constant("array"),
      prefixItems: fc.array(tie("schema"), { maxLength: 3 }),
    }),
    fc.record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(fc.string(), tie("schema"), { maxKeys: 4 }),
        required: fc.array(fc.string(), { maxLength: 3 }),
        additionalProperties: fc.oneof(fc.boolean(), tie("schema")),
      },
      { requiredKeys: ["type"] },
    ),
    fc.record({ anyOf: fc.array(tie("schema"), { maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie("schema"), { maxLength: 3 }) }),
    fc.record({ type: fc.array(fc.constantFrom("string", "null", "object", "array")) }),
    fc.jsonValue({ maxDepth: 2 }),
  ),
})).schema;

describe("TypeScript declarations of tools", () => {
  it("finds a syntax error when there is one (the check itself)", () => {
    expect(syntaxErrors("declare const tools: { a(: number };")).not.toEqual([]);
  });

  it("declares each tool at its path, with argument and result types and doc comments", () => {
    const text = typescriptDeclarations([
      toolEntry("/demo/get-sum", {
        description: "Adds two numbers",
        inputSchema: {
          type: "object",
          properties: {
            a: { type: "number", description: "The first" },
            b: { type: "integer" },
            mode: { enum: ["fast", "exact"] },
            tags: { type: "array", items: { anyOf: [{ type: "string" }, { type: "null" }] } },
          },
          required: ["a", "b"],
        },
        outputSchema: {
          type: "object",
          properties: { sum: { type: "number" } },
          required: ["sum"],
        },
      }),
      toolEntry("/cms/evo.content.search", { description: "Finds */ documents" }),
    ]);
    expect(syntaxErrors(text)).toEqual([]);
    expect(text).toContain('"get-sum"(args: {');
    expect(text).toContain("/** The first */");
    expect(text).toMatch(
      /a: number;\s+b: number;\s+mode\?: "fast" \| "exact";\s+tags\?: \(string \| null\)\[\];/,
    );
    expect(text).toContain("): Promise<{\n");
    expect(text).toContain(
      '"evo.content.search"(args?: Record<string, unknown>): Promise<ContentBlock[]>;',
    );
    expect(text).toContain("Finds *\\/ documents");
  });

  it("prints any schema a backend sends as valid TypeScript, fetching nothing", () => {
    fc.assert(
      fc.property(
        schemas,
        schemas,
        fc.string(),
        fc.string(),
        (input, output, name, description) => {
          const text = typescriptDeclarations([
            toolEntry(`/n/${name.replaceAll("/", "_") || "t"}`, {
              description,
              inputSchema: { type: "object", properties: { x: input } },
              outputSchema: output as object,
            }),
          ]);
          expect(syntaxErrors(text)).toEqual([]);
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });

  it("prints a $ref as unknown rather than resolving it", () => {
    const text = typescriptDeclarations([
      toolEntry("/n/t", {
        inputSchema: {
          type: "object",
          properties: { x: { $ref: "http://169.254.169.254/latest/meta-data" } },
        },
      }),
    ]);
    expect(text).toContain("x?: unknown;");
  });
});
