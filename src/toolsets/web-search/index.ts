import { defineToolsetKind } from "../toolset-kind.js";
import { CmsFeed } from "./cms-feed.js";
import { FolderFeed } from "./folder-feed.js";
import { SearchTool } from "./search-tool.js";
import { SearxngProvider } from "./searxng.js";
import { WebSearchSettings } from "./settings.js";
import { TextIndex } from "./text-index.js";

/** The predefined `search_tool`: SearXNG when configured; the offline index of folders and a CMS when any is. */
export const webSearchKind = defineToolsetKind({
  name: "search_tool",
  settings: { key: "search", schema: WebSearchSettings },
  create: (search, log) => {
    const web =
      search?.searxng_url === undefined
        ? undefined
        : new SearxngProvider(search.searxng_url, (search.timeout_s ?? 10) * 1000);
    if (search?.folders === undefined && search?.cms === undefined)
      return new SearchTool(web, undefined);
    const index = new TextIndex();
    const feeds = [
      ...(search.folders === undefined ? [] : [new FolderFeed(search.folders, index, log)]),
      ...(search.cms === undefined
        ? []
        : [
            new CmsFeed(
              {
                database: search.cms.database,
                tablePrefix: search.cms.table_prefix,
                siteUrl: search.cms.site_url,
              },
              index,
              log,
            ),
          ]),
    ];
    return new SearchTool(web, index, feeds);
  },
});
