import type { CmsDatabase } from "../cms-database.js";
import { itemColumns, toItems } from "../items.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { structuredResult, TOOLSET_VERSION } from "./responses.js";
import { beside, placeOf } from "./sibling-order.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.neighbors`: the immediate previous and next sibling in menu
 * order. `items` holds those there are, previous first; `meta.prev` and
 * `meta.next` name their ids (null where there is none).
 */
export function contentNeighbors(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.content.neighbors",
      "Get the previous and next sibling of a document in menu order.",
      { id: p.id, ...p.item },
      ["id"],
    ),
    async run({ db }: CmsDatabase, args) {
      const place = await placeOf(db, args.id as number);
      const nearest = (side: "prev" | "next") => {
        if (place === undefined) return Promise.resolve(undefined);
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
      const items = await toItems(
        db,
        [prev, next].filter((r) => r !== undefined),
        args,
      );
      return structuredResult({
        items,
        meta: {
          count: items.length,
          prev: prev?.id ?? null,
          next: next?.id ?? null,
          toolsetVersion: TOOLSET_VERSION,
        },
      });
    },
  };
}
