import { stemmer } from "stemmer";
import { eng } from "stopword";

/**
 * Words that carry no meaning in a request for a tool ("can you please help
 * me…"), beside the general English stop words. Kept small: every word here
 * is one a tool's own text can never be found by.
 */
const REQUEST_FILLER = ["please", "want", "need", "let", "able", "via", "using", "thing", "tool"];

const STOP_WORDS: ReadonlySet<string> = new Set([...eng, ...REQUEST_FILLER]);

/** Scripts written without spaces between words: their runs are also indexed as bigrams. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;
const LATIN_WORD = /^[a-z]+$/;

const segmenter = new Intl.Segmenter("und", { granularity: "word" });

/**
 * The terms of a text as the tool index stores and queries them: words in
 * any script (ICU's word boundaries, which know Chinese and Japanese words),
 * identifiers split into their words (`getFileContents`, `list_issues`,
 * `create-branch`), lower case, English stop words dropped and English words
 * stemmed, so that "translation" finds "translate". A run in an unspaced
 * script also gives its character bigrams, which find a word the segmenter
 * cut otherwise. English words as written are added to `englishWords`
 * when it is given.
 */
export function analyze(text: string, englishWords?: string[]): string[] {
  const out: string[] = [];
  for (const segment of wordSegments(text)) {
    const analyzed = analyzeSegment(segment);
    for (const term of analyzed.terms) out.push(term);
    if (englishWords) for (const word of analyzed.englishWords) englishWords.push(word);
  }
  return out;
}

interface AnalyzedSegment {
  readonly terms: readonly string[];
  /** Its English words as written, lower case: what a thesaurus knows. */
  readonly englishWords: readonly string[];
}

/**
 * Each segment analyzed once: texts of tools repeat their words, and
 * splitting and stemming a word costs more than finding it again.
 */
const analyzedSegments = new Map<string, AnalyzedSegment>();
const REMEMBERED_SEGMENTS = 200_000;

function analyzeSegment(segment: string): AnalyzedSegment {
  let analyzed = analyzedSegments.get(segment);
  if (analyzed === undefined) {
    const words = segmentWords(segment);
    analyzed = {
      terms: words.flatMap((w) => (UNSPACED.test(w) ? unspacedTerms(w) : [stem(w)])),
      englishWords: words.filter((w) => LATIN_WORD.test(w)),
    };
    if (analyzedSegments.size >= REMEMBERED_SEGMENTS) analyzedSegments.clear();
    analyzedSegments.set(segment, analyzed);
  }
  return analyzed;
}

/** A word's index term: English words stemmed, anything else as it is. */
export function stem(word: string): string {
  return LATIN_WORD.test(word) && word.length > 2 ? stemmer(word) : word;
}

/** The word-like segments of a text (ICU word boundaries). */
function* wordSegments(text: string): Generator<string> {
  for (const part of segmenter.segment(text.normalize("NFKC"))) {
    if (part.isWordLike === true) yield part.segment;
  }
}

/** A segment's words, lower case, identifiers split, stop words and lone letters left out. */
function segmentWords(segment: string): string[] {
  return identifierWords(segment)
    .map((w) => w.toLowerCase())
    .filter((w) => !STOP_WORDS.has(w) && !/^[a-z]$/.test(w));
}

/** `getHTTPResponse2xx` → get, HTTP, Response, 2xx; `list_issues` → list, issues. */
function identifierWords(segment: string): string[] {
  return segment
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[\s_\-.'’]+/u)
    .filter((w) => w.length > 0);
}

function unspacedTerms(word: string): string[] {
  const chars = [...word];
  if (chars.length <= 2) return [word];
  const terms = [word];
  for (let i = 0; i + 1 < chars.length; i++) terms.push(chars[i]! + chars[i + 1]!);
  return terms;
}
