/**
 * meta_search as a ranker of the tool-search benchmarks: the broker's own
 * search over a list of tools, by its words, or fused with a ranking by
 * meaning.
 */
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";
import { Thesaurus } from "../../src/tool-search/thesaurus.js";
import { ToolSearch, type ToolSearchOptions } from "../../src/tool-search/tool-search.js";

/** A logger that says nothing: a benchmark prints its own report. */
export const silent = { info() {}, warn() {}, error() {}, debug() {} } as never;

export type Ranker = (query: string) => Promise<readonly string[]> | readonly string[];

/** meta_search over `tools`, by its words, or fused with a ranking by meaning. */
export async function metaSearchRanker(
  tools: readonly SearchableTool[],
  meaning: Pick<ToolSearchOptions, "semantic" | "semanticWeight"> = {},
): Promise<Ranker> {
  const search = new ToolSearch({ log: silent, thesaurus: new Thesaurus(), ...meaning });
  search.update(tools);
  await search.settled();
  return async (query) =>
    (await search.search({ query, limit: 10, accepts: () => true })).map((h) => h.path);
}
