/**
 * How often the check for poisoned tool descriptions (src/pinning/suspicious-text.ts)
 * finds something in real tools (false positives) and in known attacks:
 *
 * - the fleet of real npm MCP servers (bench/tool-search/fleet.json);
 * - the public tool-retrieval fleet, when MCP_BROKER_TOOL_SEARCH_SET names its
 *   folder: half its tools (by a hash of their path) were looked at while the
 *   rules were written, the other half never, and is reported apart;
 * - the attack corpus of the tests (test/fixtures/poisoned-tools.json).
 *
 * `npx tsx bench/suspicious-text.ts [--show]` prints the table (--show: each
 * finding in the fleets, to review).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Tool } from "@modelcontextprotocol/server";
import { definitionOf, type ToolDefinition } from "../src/pinning/definition.js";
import { suspiciousText, type Finding } from "../src/pinning/suspicious-text.js";
import type { FleetServer } from "./tool-search/fleet.js";
import { PUBLIC_SET_VARIABLE } from "./tool-search/public-set.js";

const show = process.argv.includes("--show");
const here = new URL(".", import.meta.url).pathname;

interface Named {
  readonly path: string;
  readonly definition: ToolDefinition;
}

function flagged(tools: readonly Named[]): { path: string; findings: Finding[] }[] {
  return tools
    .map((t) => ({ path: t.path, findings: suspiciousText(t.definition) }))
    .filter((t) => t.findings.length > 0);
}

function row(name: string, tools: readonly Named[]): string {
  const hits = flagged(tools);
  if (show)
    for (const h of hits)
      for (const f of h.findings)
        console.error(`${name}\t${h.path}\t${f.rule}\t${f.field}\t${f.excerpt}`);
  const rate = tools.length === 0 ? 0 : hits.length / tools.length;
  return `| ${name} | ${tools.length} | ${hits.length} | ${(rate * 100).toFixed(2)}% |`;
}

// The fleet keeps each parameter's description (and enum): as much of a schema as a model reads.
const own = (
  JSON.parse(readFileSync(join(here, "tool-search/fleet.json"), "utf8")) as FleetServer[]
).flatMap((server) =>
  server.tools.map((tool) => ({
    path: `/${server.name}/${tool.name}`,
    definition: {
      name: tool.name,
      description: tool.description,
      inputSchema: { type: "object", properties: tool.parameters },
    },
  })),
);
const lines = [
  "| real tools | tools | flagged | false positives |",
  "| --- | ---: | ---: | ---: |",
  row("npm MCP servers (49 packages)", own),
];

const dir = process.env[PUBLIC_SET_VARIABLE];
if (dir) {
  const fleet = JSON.parse(readFileSync(join(dir, "fleet.json"), "utf8")) as {
    nodes: { path: string; tools: Tool[] }[];
  };
  const all = fleet.nodes.flatMap((n) =>
    n.tools.map((tool) => ({ path: `${n.path}/${tool.name}`, definition: definitionOf(tool) })),
  );
  lines.push(
    row(
      "public fleet, looked at",
      all.filter((t) => fnv1a(t.path) % 2 === 0),
    ),
  );
  lines.push(
    row(
      "public fleet, held out",
      all.filter((t) => fnv1a(t.path) % 2 === 1),
    ),
  );
} else lines.push(`| public fleet | (${PUBLIC_SET_VARIABLE} not set) | | |`);

const corpus = JSON.parse(
  readFileSync(join(here, "../test/fixtures/poisoned-tools.json"), "utf8"),
) as { tools: { expect: string; tool: Tool }[] };
const found = corpus.tools.filter((c) =>
  suspiciousText(definitionOf(c.tool)).some((f) => f.rule === c.expect),
).length;
lines.push("", "| attacks | tools | found by the expected rule |", "| --- | ---: | ---: |");
lines.push(`| test/fixtures/poisoned-tools.json | ${corpus.tools.length} | ${found} |`);
console.log(lines.join("\n"));

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}
