import type { ExpressionBuilder, Kysely } from "kysely";
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

export type Place = NonNullable<Awaited<ReturnType<typeof placeOf>>>;

/** Siblings before (`prev`) or after (`next`) a place in menu order: menuindex, then id. */
export function beside(
  eb: ExpressionBuilder<EvoDatabase, "site_content">,
  place: Place,
  side: "prev" | "next",
) {
  const cmp = side === "prev" ? "<" : ">";
  return eb.and([
    eb("parent", "=", place.parent),
    eb.or([
      eb("menuindex", cmp, place.menuindex),
      eb.and([eb("menuindex", "=", place.menuindex), eb("id", cmp, place.id)]),
    ]),
  ]);
}
