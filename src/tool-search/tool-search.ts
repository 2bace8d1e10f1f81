import type { Logger } from "../contract/log.js";
import { analyze } from "./analyze.js";
import { LexicalIndex, type Field, type Visible, type WeightedTerm } from "./lexical-index.js";
import { Prerequisites, type Prerequisite } from "./prerequisites.js";
import { fuseRanks } from "./rank-fusion.js";
import type { SearchableTool } from "./searchable-tool.js";
import type { SemanticIndex } from "./semantic-index.js";
import type { Thesaurus } from "./thesaurus.js";

/** How much a synonym of a query's word counts beside the word itself. */
const SYNONYM_WEIGHT = 0.4;
/** How deep each ranking is read before fusing. */
const FUSION_DEPTH = 100;
/**
 * Tools an update puts at once; more (a first index of thousands) are put a
 * slice of this many milliseconds at a time, between the broker's other work.
 */
const PUT_AT_ONCE = 500;
const SLICE_MS = 8;
/** Callers whose visible sets are kept between searches. */
const REMEMBERED_CALLERS = 64;

export interface ToolSearchOptions {
  readonly thesaurus?: Thesaurus | undefined;
  readonly semantic?: SemanticIndex | undefined;
  /** How much the ranking by meaning counts beside the words' (1: as much); default 1. */
  readonly semanticWeight?: number | undefined;
  readonly log: Logger;
}

export interface ToolQuery {
  readonly query: string;
  readonly limit: number;
  /** Whether a tool may be in the answer: under the asked node, and callable by the caller. */
  readonly accepts: (path: string) => boolean;
  /**
   * The tools the caller may see, under a key that names its scopes: ranks
   * are computed among them alone. Without it, among every tool.
   */
  readonly caller?: { readonly key: string; readonly may: (path: string) => boolean } | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface ToolHit {
  readonly path: string;
  readonly score: number;
  /** The request's words the tool has, and in which of its fields: why it was found. */
  readonly matched?: Readonly<Record<string, readonly Field[]>>;
  /** Found as the tool that finds an id the hit before it takes: that hit, and the parameter. */
  readonly prerequisiteOf?: Prerequisite;
}

/**
 * The search behind `meta_search`: a lexical index (BM25 per field, stems,
 * WordNet synonyms) always, and a semantic one when an embeddings endpoint
 * is configured, fused by rank. `update` takes the whole list of tools after
 * every change of the tree and touches only the tools that changed, so the
 * index is current as soon as the tree is and a query never rebuilds it.
 * An update of many tools (the first, at start-up) is put in slices in the
 * background: the broker serves at once, and until the last slice is in,
 * `warming` says how far it is.
 */
export class ToolSearch {
  private readonly lexical = new LexicalIndex();
  private readonly prerequisites = new Prerequisites();
  /** What each indexed tool's texts were, to see which changed. */
  private readonly indexed = new Map<string, string>();
  /** New and changed tools not put yet, by path: the latest version of each. */
  private readonly pending = new Map<string, SearchableTool>();
  private draining: Promise<void> | undefined;
  /** Changes with every tool put or removed: what a caller's visible set was made from. */
  private version = 0;
  /** Each recent caller's visible set, the least recently used first. */
  private readonly visibleSets = new Map<string, { version: number; visible: Visible }>();

  constructor(private readonly options: ToolSearchOptions) {}

  get size(): number {
    return this.indexed.size;
  }

  /** How far a large update is, while its tools are still being put; undefined once all are. */
  get warming(): { readonly indexed: number; readonly total: number } | undefined {
    if (this.pending.size === 0) return undefined;
    return { indexed: this.indexed.size, total: this.indexed.size + this.pending.size };
  }

  /** Brings the index to this list of tools: new and changed ones put, missing ones removed. */
  update(tools: Iterable<SearchableTool>): void {
    const seen = new Set<string>();
    for (const tool of tools) {
      seen.add(tool.path);
      if (this.indexed.get(tool.path) === signatureOf(tool)) this.pending.delete(tool.path);
      else this.pending.set(tool.path, tool);
    }
    for (const path of this.pending.keys()) if (!seen.has(path)) this.pending.delete(path);
    for (const path of this.indexed.keys()) {
      if (seen.has(path)) continue;
      this.indexed.delete(path);
      this.lexical.remove(path);
      this.prerequisites.remove(path);
      this.options.semantic?.remove(path);
      this.version++;
    }
    if (this.pending.size <= PUT_AT_ONCE && !this.draining) this.putPending(Infinity);
    else this.draining ??= this.drain();
  }

  /** Resolves when every tool is in, with the synonyms and embeddings of the last update. */
  async settled(): Promise<void> {
    await this.draining;
    await Promise.all([this.options.thesaurus?.learn([]), this.options.semantic?.flush()]);
  }

  private async drain(): Promise<void> {
    while (this.pending.size > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      this.putPending(performance.now() + SLICE_MS);
    }
    this.draining = undefined;
  }

  /** Puts pending tools until `until` (a `performance.now()` time) passes. */
  private putPending(until: number): void {
    const words: string[] = [];
    for (const [path, tool] of this.pending) {
      this.pending.delete(path);
      this.version++;
      this.indexed.set(path, signatureOf(tool));
      for (const word of this.lexical.put(tool)) words.push(word);
      this.prerequisites.put(tool);
      this.options.semantic?.put(tool);
      if (performance.now() > until) break;
    }
    void this.options.thesaurus?.learn(words);
    void this.options.semantic?.flush();
  }

  async search(request: ToolQuery): Promise<ToolHit[]> {
    const visible = request.caller && this.visibleTo(request.caller);
    const lexical = this.lexical.search(this.queryTerms(request.query), visible);
    const semantic = await this.semanticHits(request);
    const ranked =
      semantic === undefined
        ? lexical
        : fuseRanks([
            { paths: lexical.slice(0, FUSION_DEPTH).map((h) => h.path), weight: 1 },
            {
              paths: semantic.filter((h) => request.accepts(h.path)).map((h) => h.path),
              weight: this.options.semanticWeight ?? 1,
            },
          ]);
    const words = wordsOf(request.query);
    const out = new Map<string, ToolHit>();
    const add = (hit: ToolHit): void => {
      const matched = this.lexical.matched(hit.path, words.keys());
      out.set(
        hit.path,
        matched.size === 0
          ? hit
          : {
              ...hit,
              matched: Object.fromEntries([...matched].map(([t, f]) => [words.get(t)!, f])),
            },
      );
    };
    for (const hit of ranked) {
      if (out.size >= request.limit) break;
      if (out.has(hit.path) || !request.accepts(hit.path)) continue;
      add(hit);
      // A task naming what a tool does rarely names the search that gives its ids: it follows.
      for (const prerequisite of this.prerequisites.of(hit.path)) {
        if (out.size >= request.limit) break;
        if (out.has(prerequisite.path) || !request.accepts(prerequisite.path)) continue;
        add({
          path: prerequisite.path,
          score: hit.score,
          prerequisiteOf: { path: hit.path, parameter: prerequisite.parameter },
        });
      }
    }
    return [...out.values()];
  }

  /** A caller's visible set, made again only when the index changed since. */
  private visibleTo(caller: NonNullable<ToolQuery["caller"]>): Visible {
    const kept = this.visibleSets.get(caller.key);
    this.visibleSets.delete(caller.key);
    const visible =
      kept && kept.version === this.version ? kept.visible : this.lexical.visibleTo(caller.may);
    this.visibleSets.set(caller.key, { version: this.version, visible });
    if (this.visibleSets.size > REMEMBERED_CALLERS)
      this.visibleSets.delete(this.visibleSets.keys().next().value!);
    return visible;
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

/** Everything of a tool the index reads: a change to any part puts it again. */
function signatureOf(tool: SearchableTool): string {
  const required = (tool.requiredParameters ?? []).join("\0");
  return `${tool.name}\0${tool.description}\0${tool.parameters}\0${tool.context}\0\0${required}`;
}

/** Each index term of a request, and the word of the request it comes from, as written. */
function wordsOf(query: string): Map<string, string> {
  const words = new Map<string, string>();
  for (const chunk of query.split(/\s+/u)) {
    const word = chunk.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, "");
    for (const term of analyze(chunk)) if (!words.has(term)) words.set(term, word);
  }
  return words;
}
