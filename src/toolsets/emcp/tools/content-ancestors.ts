import type { CmsDatabase } from "../cms-database.js";
import { MAX_TREE_LEVELS } from "../tree/content-tree.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { listDocuments } from "./document-list.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.ancestors`: the documents above one, nearest first. Without
 * `depth`, the whole chain up to the root; with it, that many.
 */
export function contentAncestors(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  const { default: _default, ...depth } = p.depth;
  return {
    definition: toolDefinition(
      "evo.content.ancestors",
      "List the documents above a document, nearest first: the whole chain to the root, or depth levels.",
      {
        id: p.id,
        depth: {
          ...depth,
          description: `Levels up, 1 to ${limits.maxDepth}; without it, up to the root.`,
        },
        ...p.listing,
      },
      ["id", "limit"],
    ),
    run: (cms: CmsDatabase, args) =>
      listDocuments(cms, args, limits, {
        tree: cms.tree.above(
          args.id as number,
          typeof args.depth === "number" ? args.depth : MAX_TREE_LEVELS,
        ),
        order: (q) => q.orderBy("tree.depth").orderBy("site_content.id"),
      }),
  };
}
