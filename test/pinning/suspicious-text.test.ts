import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import type { Tool } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { definitionOf } from "../../src/pinning/definition.js";
import { suspiciousText } from "../../src/pinning/suspicious-text.js";
import { everythingCommand } from "../helpers/broker.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { connectStdio } from "../helpers/mcp-client.js";

const corpus = JSON.parse(
  readFileSync(fileURLToPath(new URL("../fixtures/poisoned-tools.json", import.meta.url)), "utf8"),
) as { tools: { expect: string; tool: Tool }[] };

const serverOf = (pkg: string, ...args: string[]) => [
  process.execPath,
  fileURLToPath(
    new URL(`../../node_modules/@modelcontextprotocol/${pkg}/dist/index.js`, import.meta.url),
  ),
  ...args,
];

describe("the check for poisoned tool descriptions", () => {
  it.each(corpus.tools.map((c) => [c.tool.name, c.expect, c.tool] as const))(
    "finds the attack in %s (%s)",
    (_name, rule, tool) => {
      const findings = suspiciousText(definitionOf(tool));
      expect(findings.map((f) => f.rule)).toContain(rule);
      // What it shows a person cannot itself hide anything: invisible characters are written out.
      for (const f of findings) expect(f.excerpt).not.toMatch(/[\u200B\u202E\u{E0000}-\u{E007F}]/u);
    },
  );

  it.each([
    ["server-everything", everythingCommand()],
    ["server-memory", serverOf("server-memory")],
    ["server-filesystem", serverOf("server-filesystem", tmpdir())],
  ])("finds nothing in the real tools of %s", async (_name, argv) => {
    const client = await connectStdio(argv);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(3);
      const flagged = tools.filter((t) => suspiciousText(definitionOf(t as Tool)).length > 0);
      expect(flagged.map((t) => t.name)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("reads any definition, of any text and shape, without failing", () => {
    fc.assert(
      fc.property(
        fc.record({
          name: fc.string({ unit: "binary", maxLength: 80 }),
          description: fc.string({ unit: "binary", maxLength: 2000 }),
          inputSchema: fc.jsonValue({ maxDepth: 5 }),
        }),
        (definition) => {
          for (const f of suspiciousText(definition)) {
            expect(f.excerpt.length).toBeLessThanOrEqual(160 + 16 * 12);
            expect(typeof f.field).toBe("string");
          }
        },
      ),
      { seed: 4, numRuns: fuzzRuns(500) },
    );
  });

  it("reads a huge definition, and text built to make patterns backtrack, to its end", () => {
    const long = "ignore previous ".repeat(50_000) + "do not ".repeat(50_000);
    const findings = suspiciousText({ name: "x", description: long, inputSchema: {} });
    expect(findings.map((f) => f.rule)).toEqual([]);
    const deep = suspiciousText({
      name: "x",
      inputSchema: {
        properties: Object.fromEntries(
          Array.from({ length: 50_000 }, (_, i) => [`p${i}`, { description: "a ".repeat(20) }]),
        ),
      },
    });
    expect(deep).toEqual([]);
  });
});
