import { sql, type Kysely } from "kysely";
import type { EvoDatabase } from "../schema.js";
import type { ContentTree, TreeRows } from "./content-tree.js";

/**
 * Tree walks over `parent` alone, with a recursive query: for databases
 * without the closure table (Evolution 1.x). Needs SQLite 3.8.3+,
 * PostgreSQL, MariaDB 10.2+ or MySQL 8.
 */
export function recursiveQuery(db: Kysely<EvoDatabase>): ContentTree {
  return {
    kind: "recursive query",
    below(id: number, depth: number): TreeRows {
      return db
        .withRecursive("walk(id, depth)", (q) =>
          q
            .selectFrom("site_content")
            .select(["id", sql<number>`1`.as("depth")])
            .where("parent", "=", id)
            .unionAll(
              q
                .selectFrom("site_content as c")
                .innerJoin("walk", "walk.id", "c.parent")
                .select(["c.id", sql<number>`walk.depth + 1`.as("depth")])
                .where("walk.depth", "<", depth),
            ),
        )
        .selectFrom("walk")
        .select(["id", "depth"])
        .as("tree");
    },
    above(id: number, depth: number): TreeRows {
      return db
        .withRecursive("walk(id, depth)", (q) =>
          q
            .selectFrom("site_content")
            .select(["parent as id", sql<number>`1`.as("depth")])
            .where("id", "=", id)
            .where("parent", "!=", 0)
            .unionAll(
              q
                .selectFrom("site_content as c")
                .innerJoin("walk", "walk.id", "c.id")
                .select(["c.parent as id", sql<number>`walk.depth + 1`.as("depth")])
                .where("c.parent", "!=", 0)
                .where("walk.depth", "<", depth),
            ),
        )
        .selectFrom("walk")
        .select(["id", "depth"])
        .as("tree");
    },
  };
}
