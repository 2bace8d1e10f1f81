import type { CmsDatabase } from "../cms-database.js";
import { BrokerError } from "../../../contract/errors.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { emptyPage, listDocuments } from "./document-list.js";
import { placeOf } from "./sibling-order.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.children_range` and `evo.content.siblings_range`: children of
 * a document, or its siblings (itself left out), whose menuindex lies between
 * `from` and `to`, both included (`to` optional, at least `from`).
 */
export function contentRange(of: "children" | "siblings", limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  const bound = (what: string) => ({
    type: "integer",
    description: `${what} menuindex, included.`,
  });
  return {
    definition: toolDefinition(
      `evo.content.${of}_range`,
      `List the ${of} of a document whose menuindex lies between from and to (both included), in menu order.`,
      {
        id: p.id,
        from: bound("The lowest"),
        to: bound("The highest (at least from; none: no upper bound)"),
        ...p.listing,
      },
      ["id", "from", "limit"],
    ),
    async run(cms: CmsDatabase, args) {
      const from = args.from as number;
      const to = args.to as number | undefined;
      if (to !== undefined && to < from) {
        throw new BrokerError("invalid_params", `to (${to}) must be at least from (${from})`, {
          from,
          to,
        });
      }
      let parent = args.id as number;
      if (of === "siblings") {
        const place = await placeOf(cms.db, args.id as number);
        if (!place) return emptyPage(args, limits);
        parent = place.parent;
      }
      return listDocuments(cms, args, limits, {
        where: (q) =>
          q
            .where("parent", "=", parent)
            .where("menuindex", ">=", from)
            .$if(to !== undefined, (w) => w.where("menuindex", "<=", to!))
            .$if(of === "siblings", (w) => w.where("site_content.id", "!=", args.id as number)),
      });
    },
  };
}
