/**
 * meta_search as users run it with `tool_search.embeddings` configured: the
 * broker's own embeddings client and semantic index, fused with the words at
 * a given weight, against an OpenAI-compatible endpoint on loopback that
 * serves a real sentence model shipped in npm packages (see
 * test/helpers/embeddings-server.ts).
 */
import { MemoryStore } from "../../src/state/memory.js";
import { EmbeddingsClient } from "../../src/tool-search/embeddings-client.js";
import { SemanticIndex } from "../../src/tool-search/semantic-index.js";
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";
import { startEmbeddingsServer } from "../../test/helpers/embeddings-server.js";
import { metaSearchRanker, silent, type Ranker } from "./meta-search-ranker.js";

export interface HybridRankers {
  /** One ranker per weight asked for, in order. */
  readonly rankers: readonly Ranker[];
  /** How long embedding every tool took the first index, in seconds, and how many texts that was. */
  readonly indexed: { seconds: number; texts: number };
  close(): Promise<void>;
}

/**
 * One search per weight, each with its own semantic index as a broker has;
 * they share one state store, so the tools are embedded once, as instances
 * sharing Redis would.
 */
export async function hybridRankers(
  tools: readonly SearchableTool[],
  weights: readonly number[],
): Promise<HybridRankers> {
  const engine = await startEmbeddingsServer();
  const client = new EmbeddingsClient({ url: engine.url, model: "use-lite", timeoutMs: 60_000 });
  const store = new MemoryStore();
  const rankers: Ranker[] = [];
  let indexed: HybridRankers["indexed"] | undefined;
  for (const weight of weights) {
    const started = performance.now();
    rankers.push(
      await metaSearchRanker(tools, {
        semantic: new SemanticIndex(client, store, silent),
        semanticWeight: weight,
      }),
    );
    indexed ??= { seconds: (performance.now() - started) / 1000, texts: engine.texts.length };
  }
  return { rankers, indexed: indexed ?? { seconds: 0, texts: 0 }, close: () => engine.close() };
}
