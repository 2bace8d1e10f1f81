import type { CmsDatabase } from "../cms-database.js";
import { itemColumns, toItems } from "../items.js";
import { type EmcpLimits, page, schemaParts, toolDefinition } from "./arguments.js";
import { structuredResult, TOOLSET_VERSION } from "./responses.js";
import { beside, placeOf } from "./sibling-order.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.neighbors`: the siblings nearest a document in menu order, on
 * each side. `limit` (default 1) is how many on each side, `offset` how many
 * of the nearest to skip first, as in every list of the contract. `items`
 * holds the previous ones then the next ones, each in menu order; `meta.prev`
 * and `meta.next` name the nearest of each in the page (null where there is
 * none); `meta.has_more` says whether either side goes on.
 */
export function contentNeighbors(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.content.neighbors",
      "Get the siblings nearest a document in menu order: limit on each side (default 1), after skipping offset.",
      {
        id: p.id,
        ...p.item,
        limit: {
          ...p.page.limit,
          default: 1,
          description: `Siblings on each side, 1 to ${limits.maxResultItems}.`,
        },
        offset: {
          ...p.page.offset,
          description: `Nearest siblings to skip on each side, at most ${limits.maxOffset}.`,
        },
      },
      ["id"],
    ),
    async run({ db }: CmsDatabase, args) {
      const { limit, offset } = page({ ...args, limit: args.limit ?? 1 }, limits);
      const place = await placeOf(db, args.id as number);
      const nearest = async (side: "prev" | "next") => {
        if (place === undefined) return [];
        const dir = side === "prev" ? "desc" : "asc";
        return db
          .selectFrom("site_content")
          .select(itemColumns(args))
          .where("deleted", "=", 0)
          .where((eb) => beside(eb, place, side))
          .orderBy("menuindex", dir)
          .orderBy("id", dir)
          .limit(limit + 1)
          .offset(offset)
          .execute();
      };
      const [prev, next] = await Promise.all([nearest("prev"), nearest("next")]);
      const shownPrev = prev.slice(0, limit);
      const shownNext = next.slice(0, limit);
      const items = await toItems(db, [...[...shownPrev].reverse(), ...shownNext], args);
      return structuredResult({
        items,
        meta: {
          limit,
          offset,
          count: items.length,
          has_more: prev.length > limit || next.length > limit,
          prev: shownPrev[0]?.id ?? null,
          next: shownNext[0]?.id ?? null,
          toolsetVersion: TOOLSET_VERSION,
        },
      });
    },
  };
}
