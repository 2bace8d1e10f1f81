import type { CmsDatabase } from "../cms-database.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { byLevel, depthOf, listDocuments } from "./document-list.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.descendants`: the documents under one, down to `depth` levels,
 * level by level, each level in menu order.
 */
export function contentDescendants(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.content.descendants",
      "List the documents under a document, down to depth levels (default 1), level by level in menu order.",
      {
        id: p.id,
        depth: p.depth,
        ...p.listing,
      },
      ["id", "limit"],
    ),
    run: (cms: CmsDatabase, args) =>
      listDocuments(cms, args, limits, {
        tree: cms.tree.below(args.id as number, depthOf(args, limits)),
        order: byLevel,
      }),
  };
}
