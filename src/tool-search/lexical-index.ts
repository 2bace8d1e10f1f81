import { adjacentSwaps } from "../contract/nearest-name.js";
import SearchableMap from "minisearch/SearchableMap";
import { analyze } from "./analyze.js";
import type { SearchableTool } from "./searchable-tool.js";

/** How much a match in each field counts; the name most, parameters least. */
export const FIELD_WEIGHTS = { name: 3, description: 1, context: 1, parameters: 0.5 } as const;

export type Field = keyof typeof FIELD_WEIGHTS;
const FIELDS = Object.keys(FIELD_WEIGHTS) as Field[];
const WEIGHTS = FIELDS.map((f) => FIELD_WEIGHTS[f]);
/** BM25's saturation of term frequency, and how much a field's length discounts it. */
const K1 = 1.2;
const B = 0.75;
/** A posting: the document, then the term's count in each field. */
const STRIDE = 1 + FIELDS.length;
/** What a vocabulary term found by prefix, or by one typo, counts beside the word itself. */
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
const MAX_EXPANSIONS = 50;
/** The weight of the name scored alone, beside BM25F over all four fields. */
const NAME_ALONE = 0.5;
const NAME = FIELDS.indexOf("name");

/** One query term and how much it counts (1 for the query's own words, less for synonyms). */
export interface WeightedTerm {
  readonly term: string;
  readonly weight: number;
}

/**
 * The tools one caller may see, as the index counts them: ranking among
 * them uses their statistics alone (how many hold each word, how long their
 * fields are), so that what others may see changes no caller's ranks.
 */
export interface Visible {
  has(doc: number): boolean;
  readonly count: number;
  readonly totalLength: readonly number[];
}

export interface LexicalHit {
  readonly path: string;
  readonly score: number;
}

/**
 * BM25F over the tool texts: a term's counts in the four fields are weighted,
 * each normalized by its field's length, and summed before BM25 saturates
 * them, with one idf per term over whole tools. Scoring each field as its own
 * BM25 and adding them up (as a general search library does) counts a term
 * once per field it is in, saturates each field alone, and gives a short
 * field's rare words an idf of their own: the node summary every tool of a
 * node shares then outweighs what tells the tools apart, and on a public set
 * it ranked below plain BM25 over name and description.
 *
 * The name is also scored alone (BM25 over names, half weight) and added:
 * it is the tool's title, and a request that names what a tool does should
 * find it even where its longer fields are already saturated with the same
 * word ("translate this paragraph into German" found a forecast that
 * mentions German before the `translate` tool without it).
 *
 * Tools are added and removed one by one: a change of a few tools never
 * rebuilds the index. A removed tool's postings are skipped until they are
 * many, then dropped in one pass.
 */
export class LexicalIndex {
  private readonly docOf = new Map<string, number>();
  /** Each document's path, or undefined once removed. */
  private paths: (string | undefined)[] = [];
  /** Each document's length in terms, per field: `doc * FIELDS.length + field`. */
  private lengths: number[] = [];
  /** Each document's terms, and the fields that have each (a bit per field). */
  private readonly termsOf = new Map<number, readonly (readonly [string, number])[]>();
  private postings = new Map<string, number[]>();
  /** How many tools hold each term; a radix tree, for terms by prefix and by typo. */
  private readonly vocabulary = new SearchableMap<number>();
  /** How many tools have each term in their name. */
  private readonly inNames = new Map<string, number>();
  private readonly totalLength = FIELDS.map(() => 0);
  private removed = 0;

  get size(): number {
    return this.docOf.size;
  }

  /**
   * Adds a tool, or replaces the one at its path. Returns the English words
   * of its name and description as written: what a thesaurus may learn.
   */
  put(tool: SearchableTool): string[] {
    this.remove(tool.path);
    const doc = this.paths.length;
    this.paths.push(tool.path);
    this.docOf.set(tool.path, doc);
    const counts = new Map<string, number[]>();
    const words: string[] = [];
    FIELDS.forEach((field, f) => {
      const terms = analyze(
        tool[field],
        field === "name" || field === "description" ? words : undefined,
      );
      this.lengths.push(terms.length);
      this.totalLength[f]! += terms.length;
      for (const term of terms) {
        let perField = counts.get(term);
        if (!perField) counts.set(term, (perField = FIELDS.map(() => 0)));
        perField[f]!++;
      }
    });
    for (const [term, perField] of counts) {
      let list = this.postings.get(term);
      if (!list) this.postings.set(term, (list = []));
      list.push(doc, ...perField);
      this.vocabulary.set(term, (this.vocabulary.get(term) ?? 0) + 1);
      if (perField[NAME]! > 0) this.inNames.set(term, (this.inNames.get(term) ?? 0) + 1);
    }
    this.termsOf.set(
      doc,
      [...counts].map(
        ([term, perField]) =>
          [
            term,
            perField.reduce((mask, count, f) => (count > 0 ? mask | (1 << f) : mask), 0),
          ] as const,
      ),
    );
    return words;
  }

  remove(path: string): void {
    const doc = this.docOf.get(path);
    if (doc === undefined) return;
    this.docOf.delete(path);
    this.paths[doc] = undefined;
    FIELDS.forEach((_, f) => (this.totalLength[f]! -= this.lengths[doc * FIELDS.length + f]!));
    for (const [term, fields] of this.termsOf.get(doc)!) {
      if (fields & (1 << NAME)) {
        const named = this.inNames.get(term)! - 1;
        if (named === 0) this.inNames.delete(term);
        else this.inNames.set(term, named);
      }
      const count = this.vocabulary.get(term)! - 1;
      if (count === 0) {
        this.vocabulary.delete(term);
        this.postings.delete(term);
      } else this.vocabulary.set(term, count);
    }
    this.termsOf.delete(doc);
    if (++this.removed > Math.max(1000, this.docOf.size)) this.compact();
  }

  /** Whether any tool holds the term. */
  holds(term: string): boolean {
    return this.vocabulary.has(term);
  }

  /**
   * The tools matching any of the terms, best first, ties by path. A term of
   * five letters or more that no tool holds (a typo, a part of a word) stands
   * for the terms it begins and those one typo away, for less; one of three
   * letters or more, for those two neighbouring letters swapped make; a term
   * the index holds matches only itself.
   */
  search(terms: readonly WeightedTerm[], visible?: Visible): LexicalHit[] {
    const live = visible?.count ?? this.docOf.size;
    if (terms.length === 0 || live === 0) return [];
    const average = (visible?.totalLength ?? this.totalLength).map((total) => total / live || 1);
    const seen = (doc: number) => this.paths[doc] !== undefined && (!visible || visible.has(doc));
    const scores = new Float64Array(this.paths.length);
    const touched: number[] = [];
    for (const [term, weight] of this.expand(terms)) {
      const list = this.postings.get(term);
      if (!list) continue;
      const [df, inNames] = visible
        ? this.visibleCounts(list, seen)
        : [this.vocabulary.get(term)!, this.inNames.get(term) ?? 0];
      if (df === 0) continue;
      const idf = idfOf(live, df);
      const nameIdf = idfOf(live, inNames);
      for (let i = 0; i < list.length; i += STRIDE) {
        const doc = list[i]!;
        if (!seen(doc)) continue;
        let tf = 0;
        let nameTf = 0;
        for (let f = 0; f < FIELDS.length; f++) {
          const count = list[i + 1 + f]!;
          if (count === 0) continue;
          const length = this.lengths[doc * FIELDS.length + f]!;
          const norm = 1 - B + (B * length) / average[f]!;
          tf += (WEIGHTS[f]! * count) / norm;
          if (f === NAME) nameTf = count / norm;
        }
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! +=
          weight *
          (saturated(idf, tf) + (nameTf > 0 ? NAME_ALONE * saturated(nameIdf, nameTf) : 0));
      }
    }
    return touched
      .map((doc) => ({ path: this.paths[doc]!, score: scores[doc]! }))
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /**
   * What a caller may see of the index: its tools (by `may`), how many, and
   * their fields' lengths. O(tools): made once per caller and index version.
   */
  visibleTo(may: (path: string) => boolean): Visible {
    const docs = new Uint8Array(this.paths.length);
    const totalLength = FIELDS.map(() => 0);
    let count = 0;
    this.paths.forEach((path, doc) => {
      if (path === undefined || !may(path)) return;
      docs[doc] = 1;
      count++;
      for (let f = 0; f < FIELDS.length; f++)
        totalLength[f]! += this.lengths[doc * FIELDS.length + f]!;
    });
    return { has: (doc) => docs[doc] === 1, count, totalLength };
  }

  /** A term's tools, and those with it in their name, among what a caller sees. */
  private visibleCounts(list: readonly number[], seen: (doc: number) => boolean): [number, number] {
    let df = 0;
    let inNames = 0;
    for (let i = 0; i < list.length; i += STRIDE) {
      if (!seen(list[i]!)) continue;
      df++;
      if (list[i + 1 + NAME]! > 0) inNames++;
    }
    return [df, inNames];
  }

  /** Which of these terms the tool at `path` has, and in which fields: why it matched. */
  matched(path: string, terms: Iterable<string>): Map<string, Field[]> {
    const doc = this.docOf.get(path);
    const out = new Map<string, Field[]>();
    if (doc === undefined) return out;
    const fieldsOf = new Map(this.termsOf.get(doc));
    for (const term of terms) {
      const mask = fieldsOf.get(term);
      if (mask)
        out.set(
          term,
          FIELDS.filter((_, f) => mask & (1 << f)),
        );
    }
    return out;
  }

  /** Each term with its weight, and the vocabulary terms an unknown one stands for. */
  private expand(terms: readonly WeightedTerm[]): Map<string, number> {
    const weights = new Map<string, number>();
    const add = (term: string, weight: number) =>
      weights.set(term, Math.max(weight, weights.get(term) ?? 0));
    for (const { term, weight } of terms) {
      if (this.holds(term) || term.length < 3) {
        add(term, weight);
        continue;
      }
      // Two neighbouring letters swapped ("lgos", "nubmer") are one slip of the fingers, not
      // the two edits the radix tree counts; a short word is one edit from too many others.
      for (const swapped of adjacentSwaps(term))
        if (this.holds(swapped)) add(swapped, weight * FUZZY_WEIGHT);
      if (term.length < 5) {
        add(term, weight);
        continue;
      }
      let taken = 0;
      for (const known of this.vocabulary.atPrefix(term).keys()) {
        if (++taken > MAX_EXPANSIONS) break;
        add(known, weight * PREFIX_WEIGHT);
      }
      for (const known of this.vocabulary.fuzzyGet(term, 1).keys())
        add(known, weight * FUZZY_WEIGHT);
    }
    return weights;
  }

  /** Drops the postings of removed tools, and renumbers the rest. */
  private compact(): void {
    const renumbered = new Map<number, number>();
    const paths: string[] = [];
    const lengths: number[] = [];
    this.paths.forEach((path, doc) => {
      if (path === undefined) return;
      renumbered.set(doc, paths.length);
      this.docOf.set(path, paths.length);
      paths.push(path);
      for (let f = 0; f < FIELDS.length; f++) lengths.push(this.lengths[doc * FIELDS.length + f]!);
    });
    const postings = new Map<string, number[]>();
    for (const [term, list] of this.postings) {
      const kept: number[] = [];
      for (let i = 0; i < list.length; i += STRIDE) {
        const doc = renumbered.get(list[i]!);
        if (doc !== undefined) kept.push(doc, ...list.slice(i + 1, i + STRIDE));
      }
      postings.set(term, kept);
    }
    const termsOf = [...this.termsOf].map(([doc, terms]) => [renumbered.get(doc)!, terms] as const);
    this.termsOf.clear();
    for (const [doc, terms] of termsOf) this.termsOf.set(doc, terms);
    this.paths = paths;
    this.lengths = lengths;
    this.postings = postings;
    this.removed = 0;
  }
}

function idfOf(live: number, df: number): number {
  return Math.log(1 + (live - df + 0.5) / (df + 0.5));
}

/** BM25's share of a term with this (weighted, normalized) frequency. */
function saturated(idf: number, tf: number): number {
  return (idf * tf * (K1 + 1)) / (tf + K1);
}
