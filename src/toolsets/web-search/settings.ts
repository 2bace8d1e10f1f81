import { z } from "zod";
import { ConfigPath } from "../../config/config-folder.js";
import { CmsDatabaseUrl, CmsTablePrefix, Seconds } from "../../config/schema.js";

/** `toolsets.search`. */
export const WebSearchSettings = z.strictObject({
  searxng_url: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe("A SearXNG instance whose JSON API answers web_search and news_search."),
  folders: z
    .array(ConfigPath)
    .optional()
    .describe(
      "Folders of .txt, .md and .html files indexed at start-up and kept fresh, searched offline.",
    ),
  cms: z
    .strictObject({
      database: CmsDatabaseUrl.describe(
        "The Evolution CMS database, as the emcp source takes it; read-only.",
      ),
      table_prefix: CmsTablePrefix.optional(),
      site_url: z
        .url({ protocol: /^https?$/ })
        .optional()
        .describe("The site's address: a document's URL is it and the document's alias."),
    })
    .optional()
    .describe(
      "Published documents of an Evolution CMS site, searched offline; re-read every minute.",
    ),
  timeout_s: Seconds.optional().describe("Longest a SearXNG query may take; default 10."),
});
