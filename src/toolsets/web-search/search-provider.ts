/** One place search results come from. */

export interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
  /** ISO 8601, when the source knows when it was published or last changed. */
  readonly published?: string | undefined;
}

export interface SearchQuery {
  readonly query: string;
  readonly limit: number;
  /** Only what was published within this many days. */
  readonly daysBack?: number | undefined;
  readonly signal: AbortSignal;
}

export interface SearchProvider {
  readonly name: string;
  search(query: SearchQuery): Promise<SearchHit[]>;
}
