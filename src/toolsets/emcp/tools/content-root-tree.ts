import type { CmsDatabase } from "../cms-database.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { byLevel, depthOf, listDocuments } from "./document-list.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.root_tree`: the site from the top, `depth` levels deep (1: the
 * top-level documents, parent 0), level by level, each in menu order.
 */
export function contentRootTree(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.content.root_tree",
      "List the site from the top, depth levels deep (default 1: the top-level documents), level by level in menu order.",
      {
        depth: p.depth,
        ...p.listing,
      },
      ["limit"],
    ),
    run: (cms: CmsDatabase, args) =>
      listDocuments(cms, args, limits, {
        tree: cms.tree.below(0, depthOf(args, limits)),
        order: byLevel,
      }),
  };
}
