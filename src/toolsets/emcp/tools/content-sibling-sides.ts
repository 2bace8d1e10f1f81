import type { CmsDatabase } from "../cms-database.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { emptyPage, listDocuments } from "./document-list.js";
import { beside, placeOf } from "./sibling-order.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.prev_siblings` and `evo.content.next_siblings`: the siblings
 * before or after a document in menu order (menuindex, then id), listed in
 * that order.
 */
export function contentSiblingSide(side: "prev" | "next", limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  const name = side === "prev" ? "evo.content.prev_siblings" : "evo.content.next_siblings";
  return {
    definition: toolDefinition(
      name,
      `List the siblings ${side === "prev" ? "before" : "after"} a document in menu order.`,
      {
        id: p.id,
        ...p.listing,
      },
      ["id", "limit"],
    ),
    async run(cms: CmsDatabase, args) {
      const place = await placeOf(cms.db, args.id as number);
      if (!place) return emptyPage(args, limits);
      return listDocuments(cms, args, limits, {
        where: (q) => q.where((eb) => beside(eb, place, side)),
      });
    },
  };
}
