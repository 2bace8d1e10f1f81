import MiniSearch from "minisearch";
import type { SearchHit, SearchProvider, SearchQuery } from "./search-provider.js";

const SNIPPET_CHARS = 240;

/** One searchable text: a file, a CMS document. */
export interface IndexedText {
  /** Unique across feeds: `file:…`, `cms:…`. */
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly url: string;
  /** Epoch ms of its publication or last change, for news_search. */
  readonly modified: number;
}

/**
 * A BM25 index (minisearch) of texts that feeds keep current, searched
 * offline: titles weigh double, prefixes and small typos match, every word
 * of the query first and any of them when that finds nothing.
 */
export class TextIndex implements SearchProvider {
  readonly name = "local";
  private readonly index = new MiniSearch<IndexedText>({
    fields: ["title", "text"],
    searchOptions: { boost: { title: 2 }, prefix: true, fuzzy: 0.2, combineWith: "AND" },
  });
  private readonly texts = new Map<string, IndexedText>();
  private readonly loading: Promise<unknown>[] = [];

  get size(): number {
    return this.texts.size;
  }

  /** Searches wait until what is being loaded at start-up is in. */
  loadingFrom(feed: Promise<unknown>): void {
    this.loading.push(feed.catch(() => undefined));
  }

  put(text: IndexedText): void {
    this.remove(text.id);
    this.texts.set(text.id, text);
    this.index.add(text);
  }

  remove(id: string): void {
    if (!this.texts.has(id)) return;
    this.index.discard(id);
    this.texts.delete(id);
  }

  async search({ query, limit, daysBack }: SearchQuery): Promise<SearchHit[]> {
    await Promise.all(this.loading);
    const since = daysBack === undefined ? 0 : Date.now() - daysBack * 86_400_000;
    let found = this.index.search(query);
    if (found.length === 0) found = this.index.search(query, { combineWith: "OR" });
    return found
      .map((r) => this.texts.get(r.id as string)!)
      .filter((t) => t.modified >= since)
      .slice(0, limit)
      .map((t) => ({
        title: t.title,
        url: t.url,
        snippet: snippet(t.text, query),
        published: new Date(t.modified).toISOString(),
      }));
  }
}

/** Text around the first word of the query found in it. */
function snippet(text: string, query: string): string {
  const flat = text.replace(/\s+/g, " ");
  const lower = flat.toLowerCase();
  const at = query
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 1)
    .map((w) => lower.indexOf(w))
    .filter((i) => i >= 0)
    .sort((a, b) => a - b)[0];
  const start = Math.max(0, (at ?? 0) - SNIPPET_CHARS / 3);
  const piece = flat.slice(start, start + SNIPPET_CHARS).trim();
  return `${start > 0 ? "…" : ""}${piece}${start + SNIPPET_CHARS < flat.length ? "…" : ""}`;
}
