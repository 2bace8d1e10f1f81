import type { CmsDatabase } from "../cms-database.js";
import { itemColumns, toItems } from "../items.js";
import { type EmcpLimits, page, schemaParts, toolDefinition } from "./arguments.js";
import { structuredResult, TOOLSET_VERSION } from "./responses.js";
import { beside, placeOf } from "./sibling-order.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.neighbors`, as Evolution's own `neighborsOf` (its closure
 * table) has it: the one sibling immediately before a document in menu
 * order and the one immediately after, that list of at most two paged by
 * `limit` (default 2) and `offset` as every list of the contract is. `items`
 * holds the page, the previous one first; `meta.prev` and `meta.next` name
 * the two (null where there is none), whatever the page.
 */
export function contentNeighbors(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.content.neighbors",
      "Get the sibling immediately before a document in menu order and the one immediately after: a list of at most two, paged by limit (default 2) and offset.",
      {
        id: p.id,
        ...p.item,
        limit: { ...p.page.limit, default: 2 },
        offset: p.page.offset,
      },
      ["id"],
    ),
    async run({ db }: CmsDatabase, args) {
      const { limit, offset } = page({ ...args, limit: args.limit ?? 2 }, limits);
      const place = await placeOf(db, args.id as number);
      const nearest = async (side: "prev" | "next") => {
        if (place === undefined) return undefined;
        const dir = side === "prev" ? "desc" : "asc";
        return db
          .selectFrom("site_content")
          .select(itemColumns(args))
          .where("deleted", "=", 0)
          .where((eb) => beside(eb, place, side))
          .orderBy("menuindex", dir)
          .orderBy("id", dir)
          .limit(1)
          .executeTakeFirst();
      };
      const [prev, next] = await Promise.all([nearest("prev"), nearest("next")]);
      const both = [prev, next].filter((row) => row !== undefined);
      const items = await toItems(db, both.slice(offset, offset + limit), args);
      return structuredResult({
        items,
        meta: {
          limit,
          offset,
          count: items.length,
          has_more: both.length > offset + limit,
          prev: prev?.id ?? null,
          next: next?.id ?? null,
          toolsetVersion: TOOLSET_VERSION,
        },
      });
    },
  };
}
