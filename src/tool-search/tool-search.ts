import type { Logger } from "../contract/log.js";
import { analyze } from "./analyze.js";
import { LexicalIndex, type WeightedTerm } from "./lexical-index.js";
import { fuseRanks } from "./rank-fusion.js";
import type { SearchableTool } from "./searchable-tool.js";
import type { SemanticIndex } from "./semantic-index.js";
import type { Thesaurus } from "./thesaurus.js";

/** How much a synonym of a query's word counts beside the word itself. */
const SYNONYM_WEIGHT = 0.4;
/** How deep each ranking is read before fusing. */
const FUSION_DEPTH = 100;

export interface ToolSearchOptions {
  readonly thesaurus?: Thesaurus | undefined;
  readonly semantic?: SemanticIndex | undefined;
  readonly log: Logger;
}

export interface ToolQuery {
  readonly query: string;
  readonly limit: number;
  /** Whether a tool may be in the answer: under the asked node, and callable by the caller. */
  readonly accepts: (path: string) => boolean;
  readonly signal?: AbortSignal | undefined;
}

export interface ToolHit {
  readonly path: string;
  readonly score: number;
}

/**
 * The search behind `meta_search`: a lexical index (BM25 per field, stems,
 * WordNet synonyms) always, and a semantic one when an embeddings endpoint
 * is configured, fused by rank. `update` takes the whole list of tools after
 * every change of the tree and touches only the tools that changed, so the
 * index is current as soon as the tree is and a query never rebuilds it.
 */
export class ToolSearch {
  private readonly lexical = new LexicalIndex();
  /** What each indexed tool's texts were, to see which changed. */
  private readonly indexed = new Map<string, string>();

  constructor(private readonly options: ToolSearchOptions) {}

  get size(): number {
    return this.indexed.size;
  }

  /** Brings the index to this list of tools: new and changed ones put, missing ones removed. */
  update(tools: Iterable<SearchableTool>): void {
    const seen = new Set<string>();
    const words: string[] = [];
    for (const tool of tools) {
      seen.add(tool.path);
      const signature = `${tool.name}\0${tool.description}\0${tool.parameters}\0${tool.context}`;
      if (this.indexed.get(tool.path) === signature) continue;
      this.indexed.set(tool.path, signature);
      for (const word of this.lexical.put(tool)) words.push(word);
      this.options.semantic?.put(tool);
    }
    for (const path of this.indexed.keys()) {
      if (seen.has(path)) continue;
      this.indexed.delete(path);
      this.lexical.remove(path);
      this.options.semantic?.remove(path);
    }
    void this.options.thesaurus?.learn(words);
    void this.options.semantic?.flush();
  }

  /** Resolves when synonyms and embeddings of the last update are in. */
  async settled(): Promise<void> {
    await Promise.all([this.options.thesaurus?.learn([]), this.options.semantic?.flush()]);
  }

  async search(request: ToolQuery): Promise<ToolHit[]> {
    const lexical = this.lexical.search(this.queryTerms(request.query));
    const semantic = await this.semanticHits(request);
    const ranked =
      semantic === undefined
        ? lexical
        : fuseRanks([
            lexical.slice(0, FUSION_DEPTH).map((h) => h.path),
            semantic.filter((h) => request.accepts(h.path)).map((h) => h.path),
          ]);
    const out: ToolHit[] = [];
    for (const hit of ranked) {
      if (out.length >= request.limit) break;
      if (request.accepts(hit.path)) out.push(hit);
    }
    return out;
  }

  /**
   * The query's own terms, then, for each the index does not hold, the
   * index terms its synonyms stand for: a synonym finds what the word
   * itself cannot, and would only blur what it can.
   */
  private queryTerms(query: string): WeightedTerm[] {
    const own = new Set(analyze(query));
    const terms: WeightedTerm[] = [...own].map((term) => ({ term, weight: 1 }));
    const thesaurus = this.options.thesaurus;
    if (!thesaurus) return terms;
    const related = new Set<string>();
    for (const term of own) {
      if (this.lexical.holds(term)) continue;
      for (const other of thesaurus.expand(term) ?? []) if (!own.has(other)) related.add(other);
    }
    for (const term of related) terms.push({ term, weight: SYNONYM_WEIGHT });
    return terms;
  }

  /** The semantic ranking, or nothing when there is none or the endpoint fails (logged). */
  private async semanticHits(request: ToolQuery): Promise<{ path: string }[] | undefined> {
    const semantic = this.options.semantic;
    if (!semantic) return undefined;
    try {
      return await semantic.search(request.query, request.signal);
    } catch (err) {
      this.options.log.warn(
        { err: (err as Error).message },
        "the embeddings endpoint failed; this search ranked by words alone",
      );
      return undefined;
    }
  }
}
