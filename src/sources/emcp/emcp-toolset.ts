import { inspectCmsDatabase, type CmsDatabase } from "../../toolsets/emcp/cms-database.js";
import { MODEL_NAMES } from "../../toolsets/emcp/models.js";
import { openDatabase, type OpenedDatabase } from "../../toolsets/emcp/open-database.js";
import { DEFAULT_EMCP_LIMITS, type EmcpLimits } from "../../toolsets/emcp/tools/arguments.js";
import { withCheckedArguments } from "../../toolsets/emcp/tools/checked-arguments.js";
import { contentAncestors } from "../../toolsets/emcp/tools/content-ancestors.js";
import { contentChildren } from "../../toolsets/emcp/tools/content-children.js";
import { contentDescendants } from "../../toolsets/emcp/tools/content-descendants.js";
import { contentGet } from "../../toolsets/emcp/tools/content-get.js";
import { contentNeighbors } from "../../toolsets/emcp/tools/content-neighbors.js";
import { contentRange } from "../../toolsets/emcp/tools/content-ranges.js";
import { contentRootTree } from "../../toolsets/emcp/tools/content-root-tree.js";
import { contentSearch } from "../../toolsets/emcp/tools/content-search.js";
import { contentSiblingSide } from "../../toolsets/emcp/tools/content-sibling-sides.js";
import { contentSiblings } from "../../toolsets/emcp/tools/content-siblings.js";
import { modelGet } from "../../toolsets/emcp/tools/model-get.js";
import { modelList } from "../../toolsets/emcp/tools/model-list.js";
import type { EmcpTool } from "../../toolsets/emcp/tools/tool.js";
import type { EmcpSourceConfig } from "./config.js";

/**
 * The part of an eMCP source that needs Kysely and the database drivers, a
 * fifth of the program's modules: the source loads it when it starts, so a
 * broker without one (and every command but serving) never does, and one
 * with one answers HTTP before it has.
 */

/** The contract's tools, with the config's limits and models, by name. */
export function emcpTools(config: EmcpSourceConfig): Map<string, EmcpTool> {
  const limits: EmcpLimits = {
    maxResultItems: config.max_result_items ?? DEFAULT_EMCP_LIMITS.maxResultItems,
    maxOffset: config.max_offset ?? DEFAULT_EMCP_LIMITS.maxOffset,
    maxDepth: config.max_depth ?? DEFAULT_EMCP_LIMITS.maxDepth,
  };
  const models = config.models ?? MODEL_NAMES;
  const tools = [
    contentSearch(limits),
    contentGet(limits),
    contentRootTree(limits),
    contentDescendants(limits),
    contentAncestors(limits),
    contentChildren(limits),
    contentSiblings(limits),
    contentNeighbors(limits),
    contentSiblingSide("prev", limits),
    contentSiblingSide("next", limits),
    contentRange("children", limits),
    contentRange("siblings", limits),
    modelList(limits, models),
    modelGet(limits, models),
  ];
  return new Map(tools.map((t) => [t.definition.name, withCheckedArguments(t)]));
}

/** The config's database, read-only and looked at; a file or server that is not there yet fails. */
export async function openCms(config: EmcpSourceConfig): Promise<CmsDatabase> {
  let opened: OpenedDatabase | undefined;
  try {
    opened = openDatabase(config.database, {
      prefix: config.table_prefix ?? "evo_",
      readOnly: true,
    });
    await opened.db.selectFrom("site_content").select("id").limit(1).execute();
    return await inspectCmsDatabase(opened);
  } catch (err) {
    await opened?.db.destroy().catch(() => undefined);
    throw err;
  }
}
