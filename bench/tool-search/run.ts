/**
 * `npm run bench` (tool search): the quality of meta_search on a fleet of
 * 650 real tools (49 MCP servers from npm, listed by their own tools/list)
 * and 314 requests written as users ask, beside plain BM25 over name and
 * description on the same data; then the latency of a query at 10,000 tools
 * and the time the index takes to follow a change. Prints Markdown.
 */
import { fileURLToPath } from "node:url";
import MiniSearch from "minisearch";
import { ToolSearch } from "../../src/tool-search/tool-search.js";
import { Thesaurus } from "../../src/tool-search/thesaurus.js";
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";
import { loadJson, searchableFleet, type FleetServer, type Query } from "./fleet.js";
import { coverageAt, mean, ndcgAt, recallAt, type Judged } from "./retrieval-metrics.js";
import { percentile } from "../stats.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const fleet = loadJson<FleetServer[]>(`${here}fleet.json`);
const queries = loadJson<Query[]>(`${here}queries.json`);
const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;

type Ranker = (query: string) => Promise<string[]>;

/** Plain BM25 over name and description: minisearch's defaults, no stems, no weights. */
function plainBm25(tools: readonly SearchableTool[]): Ranker {
  const index = new MiniSearch<SearchableTool>({
    idField: "path",
    fields: ["name", "description"],
  });
  index.addAll(tools);
  return async (query) =>
    index
      .search(query)
      .slice(0, 10)
      .map((r) => r.id as string);
}

async function brokerSearch(tools: readonly SearchableTool[], synonyms: boolean): Promise<Ranker> {
  const search = new ToolSearch({ log: silent, thesaurus: synonyms ? new Thesaurus() : undefined });
  search.update(tools);
  await search.settled();
  return async (query) =>
    (await search.search({ query, limit: 10, accepts: () => true })).map((h) => h.path);
}

async function judge(rank: Ranker): Promise<Record<string, number>> {
  const single: Judged[] = [];
  const multi: Judged[] = [];
  for (const q of queries) {
    const judged = { ranked: await rank(q.query), correct: q.tools };
    (q.kind === "single" ? single : multi).push(judged);
  }
  return {
    "recall@1": mean(single.map((j) => recallAt(1, j))),
    "recall@5": mean(single.map((j) => recallAt(5, j))),
    "nDCG@5": mean(single.map((j) => ndcgAt(5, j))),
    "multi: a needed tool in top 10": mean(multi.map((j) => recallAt(10, j))),
    "multi: needed tools in top 10": mean(multi.map((j) => coverageAt(10, j))),
  };
}

async function quality(): Promise<void> {
  const tools = searchableFleet(fleet);
  const systems: [string, Ranker][] = [
    ["plain BM25 (name + description)", plainBm25(tools)],
    ["meta_search, no synonyms", await brokerSearch(tools, false)],
    ["meta_search (default)", await brokerSearch(tools, true)],
  ];
  const rows: [string, Record<string, number>][] = [];
  for (const [name, rank] of systems) rows.push([name, await judge(rank)]);
  const columns = Object.keys(rows[0]![1]);
  const singles = queries.filter((q) => q.kind === "single").length;
  console.log(
    `\n### Tool search quality: ${tools.length} tools from ${fleet.length} servers, ${singles} single-tool requests, ${queries.length - singles} multi-step tasks\n`,
  );
  console.log(`| ranking | ${columns.join(" | ")} |`);
  console.log(`| --- | ${columns.map(() => "---").join(" | ")} |`);
  for (const [name, row] of rows) {
    console.log(`| ${name} | ${columns.map((c) => row[c]!.toFixed(3)).join(" | ")} |`);
  }
}

/** Resolves once every tool of the last update is in the index (synonyms aside). */
async function indexed(search: ToolSearch): Promise<void> {
  while (search.warming) await new Promise((resolve) => setImmediate(resolve));
}

/** The first index of the fleet, in a process that has analyzed nothing yet. */
async function firstIndexOfFleet(): Promise<number> {
  const started = performance.now();
  const search = new ToolSearch({ log: silent, thesaurus: new Thesaurus() });
  search.update(searchableFleet(fleet));
  await indexed(search);
  return performance.now() - started;
}

async function speed(fleetBuilt: number): Promise<void> {
  const copies = Math.ceil(10_000 / searchableFleet(fleet).length);
  const tools = Array.from({ length: copies }, (_, i) => searchableFleet(fleet, `/site${i}`))
    .flat()
    .slice(0, 10_000);
  const search = new ToolSearch({ log: silent, thesaurus: new Thesaurus() });
  let started = performance.now();
  search.update(tools);
  const returned = performance.now() - started;
  await indexed(search);
  const built = performance.now() - started;
  started = performance.now();
  await search.settled();
  const synonymsIn = performance.now() - started;

  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const q of queries) {
      const t = performance.now();
      await search.search({ query: q.query, limit: 10, accepts: () => true });
      times.push(performance.now() - t);
    }
  }
  // A source announcing list_changed: one tool's description changes, 20 tools come.
  const changed = tools.map((t, i) =>
    i === 0 ? { ...t, description: `${t.description} zyxwvut` } : t,
  );
  const added = searchableFleet(fleet.slice(0, 3), "/new").slice(0, 20);
  started = performance.now();
  search.update([...changed, ...added]);
  const updated = performance.now() - started;
  const found = await search.search({ query: "zyxwvut", limit: 1, accepts: () => true });

  console.log(`\n### Tool search speed at ${tools.length} tools (in process)\n`);
  console.log("| measure | value |\n| --- | --- |");
  console.log(
    `| first index of the ${searchableFleet(fleet).length} tools of the fleet | ${fleetBuilt.toFixed(0)} ms |`,
  );
  console.log(
    `| first index of ${tools.length} tools: update() returns (start-up goes on) | ${returned.toFixed(0)} ms |`,
  );
  console.log(
    `| first index of ${tools.length} tools: all in (in slices, in the background) | ${built.toFixed(0)} ms |`,
  );
  console.log(
    `| WordNet synonyms of their words learned (background) | ${synonymsIn.toFixed(0)} ms |`,
  );
  times.sort((a, b) => a - b);
  console.log(`| query p50 | ${percentile(times, 50).toFixed(2)} ms |`);
  console.log(`| query p95 | ${percentile(times, 95).toFixed(2)} ms |`);
  console.log(`| query p99 | ${percentile(times, 99).toFixed(2)} ms |`);
  console.log(
    `| update after a change (1 changed, 20 added, of ${tools.length + 20}) | ${updated.toFixed(0)} ms (changed tool found: ${found[0]?.path === tools[0]!.path}) |`,
  );
}

const fleetBuilt = await firstIndexOfFleet();
await quality();
await speed(fleetBuilt);
