import MiniSearch from "minisearch";
import { analyze } from "./analyze.js";
import type { SearchableTool } from "./searchable-tool.js";

/** How much a match in each field counts; the name most, parameters least. */
export const FIELD_WEIGHTS = { name: 3, description: 1, context: 1, parameters: 0.5 } as const;

type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];

/** A document as minisearch holds it: each field already analyzed, terms joined by spaces. */
type AnalyzedTool = { id: string } & Record<Field, string>;

/** One query term and how much it counts (1 for the query's own words, less for synonyms). */
export interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

export interface LexicalHit {
  readonly path: string;
  readonly score: number;
}

/**
 * BM25 over the tool texts, each field scored on its own and weighted
 * (minisearch), on terms made by `analyze` so that the index and the query
 * agree on words. Documents are added and removed one by one: a change of a
 * few tools never rebuilds the index.
 */
export class LexicalIndex {
  private readonly index = new MiniSearch<AnalyzedTool>({
    fields: FIELDS,
    tokenize: (text) => (text === "" ? [] : text.split(" ")),
    processTerm: (term) => term,
    searchOptions: { boost: FIELD_WEIGHTS },
  });

  /** How many tools hold each term: a query's word the index lacks is worth a synonym. */
  private readonly vocabulary = new Map<string, number>();
  private readonly termsOf = new Map<string, readonly string[]>();

  /**
   * Adds a tool, or replaces the one at its path. Returns the English words
   * of its name and description as written: what a thesaurus may learn.
   */
  put(tool: SearchableTool): string[] {
    this.remove(tool.path);
    const doc: AnalyzedTool = {
      id: tool.path,
      name: "",
      description: "",
      context: "",
      parameters: "",
    };
    const terms = new Set<string>();
    const words: string[] = [];
    for (const field of FIELDS) {
      const fieldTerms = analyze(
        tool[field],
        field === "name" || field === "description" ? words : undefined,
      );
      for (const term of fieldTerms) terms.add(term);
      doc[field] = fieldTerms.join(" ");
    }
    this.index.add(doc);
    this.termsOf.set(tool.path, [...terms]);
    for (const term of terms) this.vocabulary.set(term, (this.vocabulary.get(term) ?? 0) + 1);
    return words;
  }

  remove(path: string): void {
    const terms = this.termsOf.get(path);
    if (!terms) return;
    this.index.discard(path);
    this.termsOf.delete(path);
    for (const term of terms) {
      const count = this.vocabulary.get(term)! - 1;
      if (count === 0) this.vocabulary.delete(term);
      else this.vocabulary.set(term, count);
    }
  }

  /** Whether any tool holds the term. */
  holds(term: string): boolean {
    return this.vocabulary.has(term);
  }

  /**
   * The tools matching any of the terms, best first. A term of five letters
   * or more that no tool holds (a typo, a part of a word) also matches as a
   * prefix and with one typo, for less; a term the index holds matches only
   * itself, which keeps a query at 10,000 tools to a few milliseconds.
   */
  search(terms: readonly WeightedTerm[]): LexicalHit[] {
    if (terms.length === 0) return [];
    const weights = new Map(terms.map((t) => [t.term, t.weight]));
    return this.index
      .search(
        { combineWith: "OR", queries: terms.map((t) => t.term) },
        {
          boostTerm: (term) => weights.get(term) ?? 1,
          prefix: (term) => term.length >= 5 && !this.holds(term),
          fuzzy: (term) => (term.length >= 5 && !this.holds(term) ? 1 : false),
          maxFuzzy: 1,
        },
      )
      .map((r) => ({ path: r.id as string, score: r.score }));
  }
}
