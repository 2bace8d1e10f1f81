import { sql, type Kysely } from "kysely";
import type { EvoDatabase } from "../schema.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { depthOf, listDocuments } from "./document-list.js";
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
        with_tvs: p.with_tvs,
        with_content: p.with_content,
        limit: p.limit,
        offset: p.offset,
      },
      ["limit"],
    ),
    run: (db: Kysely<EvoDatabase>, args) => {
      const depth = depthOf(args, limits);
      // A document's level is the number of documents above it, plus one.
      const above = db
        .selectFrom("site_content_closure")
        .select((eb) => eb.fn.countAll<number>().as("above"))
        .where("site_content_closure.descendant", "=", sql.ref<number>("site_content.id"))
        .where("site_content_closure.depth", ">=", 1);
      return listDocuments(
        db,
        args,
        limits,
        (q) => q.where(above, "<", depth),
        (q) => q.orderBy(above).orderBy("parent").orderBy("menuindex").orderBy("id"),
      );
    },
  };
}
