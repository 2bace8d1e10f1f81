/**
 * Pinned tool definitions, measured. First what a review of 10,000 tools
 * costs on each store (first sight, again, and after a restart), beside its
 * floor: the SHA-256 of each definition, which any pinning must compute.
 * Then how often the check for poisoned tool descriptions
 * (src/pinning/suspicious-text.ts) finds something in real tools (false
 * positives) and in known attacks:
 *
 * - the fleet of real npm MCP servers (bench/tool-search/fleet.json);
 * - the public tool-retrieval fleet, when MCP_BROKER_TOOL_SEARCH_SET names its
 *   folder: half its tools (by a hash of their path) were looked at while the
 *   rules were written, the other half never, and is reported apart;
 * - the attack corpus of the tests (test/fixtures/poisoned-tools.json).
 *
 * `npx tsx bench/pinning.ts [--show]` prints the tables (--show: each
 * finding in the fleets, to review).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Tool } from "@modelcontextprotocol/server";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { pino } from "pino";
import { definitionOf, fingerprintOf, type ToolDefinition } from "../src/pinning/definition.js";
import { PinBook } from "../src/pinning/pin-book.js";
import { openStore } from "../src/state/open-store.js";
import { RedisStore } from "../src/state/redis.js";
import type { StateStore } from "../src/state/store.js";
import type { Mount } from "../src/tree/skeleton.js";
import { suspiciousText, type Finding } from "../src/pinning/suspicious-text.js";
import type { FleetServer } from "./tool-search/fleet.js";
import { PUBLIC_SET_VARIABLE } from "./tool-search/public-set.js";

const show = process.argv.includes("--show");
const silent = pino({ level: "silent" });

/** A source of `n` tools with descriptions and a parameter each, as real ones have. */
const big = Array.from({ length: 10_000 }, (_, i) => ({
  name: `tool_${i}`,
  description: `Does thing ${i}: what it does, on what, and what it gives back. ${"Some more words. ".repeat(8)}`,
  inputSchema: {
    type: "object" as const,
    properties: { id: { type: "string", description: `the id of the thing ${i}` } },
  },
}));
const mount = { id: "/big", name: "big", source: { backend: "stdio", command: ["x"] } } as Mount;
const lists = new Map([["/big", big]]);

async function timed(work: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const reviews = [
  "| 10,000 tools | first sight ms | again ms | after a restart ms |",
  "| --- | ---: | ---: | ---: |",
];
const floor = await timed(() => big.forEach((t) => fingerprintOf(definitionOf(t))));
reviews.push(
  `| floor: SHA-256 of each definition | ${floor.toFixed(0)} | ${floor.toFixed(0)} | ${floor.toFixed(0)} |`,
);
for (const spec of [
  "memory",
  `sqlite:${join(mkdtempSync(join(tmpdir(), "pins-")), "pins.db")}`,
  "redis",
]) {
  let store: StateStore;
  if (spec === "redis") {
    if (!(await redisReachable())) {
      reviews.push("| redis | (not reachable at 127.0.0.1:6379) | | |");
      continue;
    }
    const redis = new RedisStore("redis://127.0.0.1:6379", `bench-pins:${Date.now()}:`);
    await redis.ready();
    store = redis;
  } else store = await openStore(spec);
  const book = new PinBook(store, "warn", suspiciousText, silent, () => undefined);
  const first = await timed(() => book.review([mount], lists));
  const again = await timed(() => book.review([mount], lists));
  const restarted = new PinBook(store, "warn", suspiciousText, silent, () => undefined);
  const afterRestart = await timed(() => restarted.review([mount], lists));
  reviews.push(
    `| ${spec.split(":")[0]} | ${first.toFixed(0)} | ${again.toFixed(0)} | ${afterRestart.toFixed(0)} |`,
  );
  book.close();
  restarted.close();
  await store.close();
}
console.log(reviews.join("\n") + "\n");

async function redisReachable(): Promise<boolean> {
  const { createConnection } = await import("node:net");
  return new Promise((resolve) => {
    const socket = createConnection(6379, "127.0.0.1");
    socket.once("connect", () => (socket.end(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}
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
