import { sql, type Kysely } from "kysely";
import type { EvoDatabase } from "../schema.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { listDocuments } from "./document-list.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.ancestors`: the documents above one, nearest first. Without
 * `depth`, the whole chain up to the root (DESIGN.md); with it, that many.
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
        with_tvs: p.with_tvs,
        with_content: p.with_content,
        limit: p.limit,
        offset: p.offset,
      },
      ["id", "limit"],
    ),
    run: (db: Kysely<EvoDatabase>, args) => {
      const levels = typeof args.depth === "number" ? args.depth : undefined;
      const distance = db
        .selectFrom("site_content_closure")
        .select("site_content_closure.depth")
        .where("site_content_closure.descendant", "=", args.id as number)
        .where("site_content_closure.ancestor", "=", sql.ref<number>("site_content.id"));
      return listDocuments(
        db,
        args,
        limits,
        (q) =>
          q.where("id", "in", (sub) =>
            sub
              .selectFrom("site_content_closure")
              .select("ancestor")
              .where("descendant", "=", args.id as number)
              .where("depth", ">=", 1)
              .$if(levels !== undefined, (w) => w.where("depth", "<=", levels!)),
          ),
        (q) => q.orderBy(distance).orderBy("id"),
      );
    },
  };
}
