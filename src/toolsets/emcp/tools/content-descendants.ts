import { sql, type Kysely } from "kysely";
import type { EvoDatabase } from "../schema.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { depthOf, listDocuments } from "./document-list.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.descendants`: the documents under one, down to `depth` levels,
 * through the closure table; level by level, each level in menu order.
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
        with_tvs: p.with_tvs,
        with_content: p.with_content,
        limit: p.limit,
        offset: p.offset,
      },
      ["id", "limit"],
    ),
    run: (db: Kysely<EvoDatabase>, args) => {
      const depth = depthOf(args, limits);
      const levelOf = db
        .selectFrom("site_content_closure")
        .select("site_content_closure.depth")
        .where("site_content_closure.ancestor", "=", args.id as number)
        // The outer document: a correlated reference the typed builder cannot name.
        .where("site_content_closure.descendant", "=", sql.ref<number>("site_content.id"));
      return listDocuments(
        db,
        args,
        limits,
        (q) =>
          q.where("id", "in", (sub) =>
            sub
              .selectFrom("site_content_closure")
              .select("descendant")
              .where("ancestor", "=", args.id as number)
              .where("depth", ">=", 1)
              .where("depth", "<=", depth),
          ),
        (q) => q.orderBy(levelOf).orderBy("parent").orderBy("menuindex").orderBy("id"),
      );
    },
  };
}
