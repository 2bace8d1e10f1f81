import { z } from "zod";
import { BrokerError } from "../../contract/errors.js";
import { ANY_ADDRESS } from "../../net/address-policy.js";
import { guardedRequest, RequestFailed } from "../../net/guarded-request.js";
import { urlUnder } from "../../net/url-under.js";
import type { SearchHit, SearchProvider, SearchQuery } from "./search-provider.js";

const MAX_ANSWER_BYTES = 5 * 1024 * 1024;

/** SearXNG's JSON answer (`format=json`), as much of it as is used. */
const SearxAnswer = z.looseObject({
  results: z.array(
    z.looseObject({
      title: z.string().default(""),
      url: z.string(),
      content: z.string().nullish(),
      publishedDate: z.string().nullish(),
    }),
  ),
});

/** SearXNG's time ranges, the smallest that covers `days` first. */
const TIME_RANGES: [number, string][] = [
  [1, "day"],
  [7, "week"],
  [31, "month"],
  [366, "year"],
];

/** A SearXNG instance, through its JSON API; news through its `news` category. */
export class SearxngProvider implements SearchProvider {
  readonly name = "searxng";

  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async search({ query, limit, daysBack, signal }: SearchQuery): Promise<SearchHit[]> {
    const url = urlUnder(this.baseUrl, "search");
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    if (daysBack !== undefined) {
      url.searchParams.set("categories", "news");
      const range = TIME_RANGES.find(([days]) => daysBack <= days)?.[1];
      if (range) url.searchParams.set("time_range", range);
    }
    let text: string;
    try {
      const answer = await guardedRequest(url.href, {
        method: "GET",
        headers: { accept: "application/json" },
        policy: ANY_ADDRESS,
        maxBytes: MAX_ANSWER_BYTES,
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]),
      });
      if (answer.status !== 200) {
        throw new BrokerError(
          "unavailable",
          `SearXNG at ${url.origin} answered HTTP ${answer.status}${answer.status === 403 ? " (is the json format enabled in its settings.yml?)" : ""}`,
        );
      }
      text = answer.body.toString("utf8");
    } catch (err) {
      if (err instanceof BrokerError) throw err;
      if (signal.aborted) throw signal.reason;
      const why =
        err instanceof RequestFailed
          ? err.message
          : `no answer within ${this.timeoutMs / 1000} s (toolsets.search.timeout_s)`;
      throw new BrokerError("unavailable", `SearXNG could not be asked: ${why}`);
    }
    const parsed = SearxAnswer.safeParse(safeJson(text));
    if (!parsed.success) {
      throw new BrokerError(
        "unavailable",
        `SearXNG at ${url.origin} did not answer with its JSON results`,
      );
    }
    const since = daysBack === undefined ? undefined : Date.now() - daysBack * 86_400_000;
    return parsed.data.results
      .filter(
        (r) => since === undefined || !r.publishedDate || Date.parse(r.publishedDate) >= since,
      )
      .slice(0, limit)
      .map((r) => ({
        title: r.title,
        url: r.url,
        snippet: r.content ?? "",
        ...(r.publishedDate ? { published: new Date(r.publishedDate).toISOString() } : {}),
      }));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
