import type { Kysely } from "kysely";
import type { EvoDatabase } from "../schema.js";

/** Where a document stands among its siblings: its parent and its place in menu order. */
export async function placeOf(
  db: Kysely<EvoDatabase>,
  id: number,
): Promise<{ id: number; parent: number; menuindex: number } | undefined> {
  return db
    .selectFrom("site_content")
    .select(["id", "parent", "menuindex"])
    .where("id", "=", id)
    .executeTakeFirst();
}
