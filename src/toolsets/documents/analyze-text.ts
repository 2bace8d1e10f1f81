import type { ItemEntity, ItemToken } from "wink-nlp";

/**
 * wink-nlp with its English model, and compromise: loaded on the first
 * analysis (together about 0.7 s), so a broker that never analyzes a
 * document does not pay for them at start.
 */
const language = (() => {
  let loading: ReturnType<typeof load> | undefined;
  async function load() {
    const [{ default: winkNLP }, { default: model }, { default: nlp }] = await Promise.all([
      import("wink-nlp"),
      import("wink-eng-lite-web-model"),
      import("compromise"),
    ]);
    const wink = winkNLP(model);
    return { wink, its: wink.its, nlp };
  }
  return () => (loading ??= load());
})();

/** Keywords are nouns, proper nouns and adjectives that are not stop words. */
const KEYWORD_POS = new Set(["NOUN", "PROPN", "ADJ"]);

/** The most central sentences, in the order they appear: an extractive summary. */
export async function summarize(text: string, maxSentences = 5): Promise<Record<string, unknown>> {
  const { wink, its } = await language();
  const doc = wink.readDoc(text);
  const sentences = doc.sentences().out() as string[];
  const importance = doc.out(its.sentenceWiseImportance) as unknown as {
    index: number;
    importance: number;
  }[];
  const count = Math.min(maxSentences, Math.max(1, Math.ceil(sentences.length / 5)));
  const chosen = [...importance]
    .sort((a, b) => b.importance - a.importance || a.index - b.index)
    .slice(0, count)
    .map((s) => s.index)
    .sort((a, b) => a - b);
  return {
    summary: chosen.map((i) => sentences[i]).join(" "),
    sentences: chosen.map((i) => ({ index: i, text: sentences[i] })),
    total_sentences: sentences.length,
  };
}

/** Ranked keywords, by how often each occurs; the score is relative to the first. */
export async function keywords(text: string, limit = 15): Promise<Record<string, unknown>> {
  const { wink, its } = await language();
  const doc = wink.readDoc(text);
  const counts = new Map<string, number>();
  doc.tokens().each((token: ItemToken) => {
    if (token.out(its.type) !== "word" || token.out(its.stopWordFlag)) return;
    if (!KEYWORD_POS.has(token.out(its.pos))) return;
    const word = token.out(its.normal);
    if (word.length < 3) return;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  });
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const top = ranked[0]?.[1] ?? 1;
  return {
    keywords: ranked.slice(0, limit).map(([keyword, count]) => ({
      keyword,
      count,
      score: Math.round((count / top) * 1000) / 1000,
    })),
  };
}

/** Sentiment from wink-nlp's lexicon: a score from -1 to 1 and its label. */
export async function sentiment(text: string): Promise<Record<string, unknown>> {
  const { wink, its } = await language();
  const doc = wink.readDoc(text);
  const score = doc.out(its.sentiment) as unknown as number;
  const perSentence = doc.sentences().out(its.sentiment) as unknown as number[];
  return {
    score: Math.round(score * 1000) / 1000,
    label: score > 0.05 ? "positive" : score < -0.05 ? "negative" : "neutral",
    positive_sentences: perSentence.filter((s) => s > 0.05).length,
    negative_sentences: perSentence.filter((s) => s < -0.05).length,
    total_sentences: perSentence.length,
  };
}

/** People, places and organizations (compromise) and dates (wink-nlp), each with its count. */
export async function entities(text: string): Promise<Record<string, unknown>> {
  const { wink, its, nlp } = await language();
  const doc = nlp(text);
  const dates: string[] = [];
  wink
    .readDoc(text)
    .entities()
    .each((entity: ItemEntity) => {
      const detail = entity.out(its.detail) as unknown as { value: string; type: string };
      if (detail.type === "DATE") dates.push(detail.value);
    });
  return {
    people: counted(doc.people().out("array") as string[]),
    places: counted(doc.places().out("array") as string[]),
    organizations: counted(doc.organizations().out("array") as string[]),
    dates: counted(dates),
  };
}

function counted(mentions: string[]): { text: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const mention of mentions) {
    const text = mention.replace(/[\s.,;:!?'"()]+$/u, "").replace(/^[\s'"(]+/u, "");
    if (text !== "") counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([text, count]) => ({ text, count }));
}
