import { sql, type Kysely } from "kysely";
import type { EvoDatabase } from "../schema.js";
import type { ContentTree, TreeRows } from "./content-tree.js";

/**
 * Tree walks through Evolution 3's `site_content_closure` (ancestor,
 * descendant, depth): one indexed lookup, however deep. Rows of depth 0
 * (a document and itself) may or may not be there; no walk relies on them.
 */
export function closureTable(db: Kysely<EvoDatabase>): ContentTree {
  return {
    kind: "closure table",
    below(id: number, depth: number): TreeRows {
      const under = (ancestor: number) =>
        db
          .selectFrom("site_content_closure")
          .select(["descendant as id", "depth"])
          .where("ancestor", "=", ancestor)
          .where("depth", ">=", 1)
          .where("depth", "<=", depth);
      if (id !== 0) return under(id).as("tree");
      // The top has no row of its own: its documents are level 1, theirs level 1 + depth.
      return db
        .selectFrom("site_content")
        .select(["id", sql<number>`1`.as("depth")])
        .where("parent", "=", 0)
        .unionAll(
          db
            .selectFrom("site_content_closure as c")
            .innerJoin("site_content as top", "top.id", "c.ancestor")
            .select(["c.descendant as id", sql<number>`c.depth + 1`.as("depth")])
            .where("top.parent", "=", 0)
            .where("c.depth", ">=", 1)
            .where("c.depth", "<", depth),
        )
        .as("tree");
    },
    above(id: number, depth: number): TreeRows {
      return db
        .selectFrom("site_content_closure")
        .select(["ancestor as id", "depth"])
        .where("descendant", "=", id)
        .where("depth", ">=", 1)
        .where("depth", "<=", depth)
        .as("tree");
    },
  };
}
