import type { ToolsetsConfig } from "../config/schema.js";
import type { Logger } from "../contract/log.js";
import type { BuiltinToolset } from "./builtin-toolset.js";
import { Calculator } from "./calculator/calculator.js";
import { DocumentAnalyzer } from "./documents/document-analyzer.js";
import { CmsFeed } from "./web-search/cms-feed.js";
import { FolderFeed } from "./web-search/folder-feed.js";
import { TextIndex } from "./web-search/text-index.js";
import { SearchTool } from "./web-search/search-tool.js";
import { SearxngProvider } from "./web-search/searxng.js";
import { TimeTool } from "./time/time-tool.js";
import { Automatic1111 } from "./images/automatic1111.js";
import { ImageGenerator } from "./images/image-generator.js";
import { OpenAiImages } from "./images/openai-images.js";
import { ANY_ADDRESS } from "../net/address-policy.js";
import { PublicAddresses } from "../net/public-addresses.js";

/** Every built-in toolset, with the config's settings: the tool registry protocol's predefined tools. */
export function createBuiltinToolsets(config: ToolsetsConfig = {}, log: Logger): BuiltinToolset[] {
  const search = config.search;
  return [
    new Calculator(
      {
        timeoutMs: (config.calculator?.timeout_s ?? 2) * 1000,
        maxMemoryMb: config.calculator?.max_memory_mb ?? 64,
        processes: config.calculator?.processes ?? 2,
      },
      log,
    ),
    new TimeTool(),
    documentAnalyzer(config.documents, log),
    searchTool(search, log),
    new ImageGenerator(imageProvider(config.images, log)),
  ];
}

function documentAnalyzer(documents: ToolsetsConfig["documents"], log: Logger): DocumentAnalyzer {
  const maxTextChars = documents?.max_text_chars ?? 1_000_000;
  return new DocumentAnalyzer(
    {
      roots: documents?.roots ?? [],
      policy: documents?.allow_private_networks
        ? ANY_ADDRESS
        : new PublicAddresses("toolsets.documents.allow_private_networks"),
      maxBytes: documents?.max_bytes ?? 20 * 1024 * 1024,
      timeoutMs: (documents?.timeout_s ?? 20) * 1000,
      maxMemoryMb: documents?.max_memory_mb ?? 512,
      processes: documents?.processes ?? 2,
      // Room for the text in UTF-8 (at most 4 bytes a character) and the analyses around it.
      maxReplyBytes: maxTextChars * 4 + 1024 * 1024,
      limits: {
        maxPages: documents?.max_pages ?? 1000,
        maxUnzippedBytes: (documents?.max_unzipped_mb ?? 10) * 1024 * 1024,
        maxTextChars,
        maxAnalyzedChars: documents?.max_analyzed_chars ?? 200_000,
      },
    },
    log,
  );
}

function imageProvider(images: ToolsetsConfig["images"], log: Logger) {
  if (images === undefined) return undefined;
  if (images.api_key_env !== undefined && process.env[images.api_key_env] === undefined) {
    log.warn(
      { variable: images.api_key_env },
      "toolsets.images.api_key_env names a variable that is not set; the provider is asked without a key",
    );
  }
  const settings = {
    url: images.url,
    model: images.model,
    apiKey: images.api_key_env === undefined ? undefined : process.env[images.api_key_env],
    timeoutMs: (images.timeout_s ?? 120) * 1000,
  };
  return images.provider === "openai" ? new OpenAiImages(settings) : new Automatic1111(settings);
}

/** SearXNG when configured; the offline index of folders and a CMS when any is. */
function searchTool(search: ToolsetsConfig["search"], log: Logger): SearchTool {
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
}
