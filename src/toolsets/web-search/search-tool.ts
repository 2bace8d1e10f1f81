import { BrokerError } from "../../contract/errors.js";
import type { HealthReport, ServiceCall } from "../../registry/tool-service.js";
import type { BuiltinToolset } from "../builtin-toolset.js";
import { SEARCH_TOOL } from "./definition.js";
import type { SearchProvider } from "./search-provider.js";

/** max_results the tool takes (the protocol's registration example says 1 to 20). */
const MAX_RESULTS = 20;

/**
 * `web_search` and `news_search`: a SearXNG instance when one is configured,
 * else the offline index of local folders and a CMS. Without either, a call
 * says how to configure one: never made-up results.
 */
export class SearchTool implements BuiltinToolset {
  readonly definition = SEARCH_TOOL;

  constructor(
    private readonly web: SearchProvider | undefined,
    private readonly local: SearchProvider | undefined,
    /** What keeps the local index current, stopped with the tool. */
    private readonly feeds: readonly { close(): unknown }[] = [],
  ) {}

  async call({ functionName, args, signal }: ServiceCall): Promise<unknown> {
    const query = String(args.query).trim();
    if (query === "")
      throw new BrokerError("invalid_params", "query is empty; say what to look for");
    switch (functionName) {
      case "web_search": {
        const limit = typeof args.max_results === "number" ? args.max_results : 5;
        if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RESULTS) {
          throw new BrokerError(
            "invalid_params",
            `max_results must be a whole number from 1 to ${MAX_RESULTS}, not ${limit}`,
          );
        }
        return this.run(query, limit, undefined, signal);
      }
      case "news_search": {
        const days = typeof args.days_back === "number" ? args.days_back : 7;
        if (!Number.isInteger(days) || days < 1 || days > 3650) {
          throw new BrokerError(
            "invalid_params",
            `days_back must be a whole number from 1 to 3650, not ${days}`,
          );
        }
        return { ...(await this.run(query, 10, days, signal)), days_back: days };
      }
      default:
        throw new BrokerError("not_found", `the search tool has no function "${functionName}"`, {
          function: functionName,
        });
    }
  }

  async check(): Promise<HealthReport> {
    const provider = this.provider();
    return provider
      ? { healthy: true }
      : { healthy: false, lastError: "no search provider is configured" };
  }

  async close(): Promise<void> {
    await Promise.all(this.feeds.map((feed) => feed.close()));
  }

  private async run(
    query: string,
    limit: number,
    daysBack: number | undefined,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const provider = this.provider();
    if (!provider) {
      throw new BrokerError(
        "unavailable",
        "no search provider is configured: set toolsets.search.searxng_url to a SearXNG instance, or toolsets.search.folders (folders of text, Markdown or HTML files) or toolsets.search.cms (an Evolution CMS database) to search offline",
      );
    }
    const results = await provider.search({ query, limit, daysBack, signal });
    return { query, provider: provider.name, results };
  }

  private provider(): SearchProvider | undefined {
    return this.web ?? this.local;
  }
}
