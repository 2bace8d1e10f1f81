import type { CmsDatabase } from "../cms-database.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { listDocuments } from "./document-list.js";
import type { EmcpTool } from "./tool.js";

/** `evo.content.siblings`: the other documents under the same parent, in menu order. */
export function contentSiblings(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.content.siblings",
      "List the other documents under the same parent as a document, in menu order; the document itself is left out.",
      {
        id: p.id,
        ...p.listing,
      },
      ["id", "limit"],
    ),
    run: (cms: CmsDatabase, args) =>
      listDocuments(cms, args, limits, {
        where: (q) =>
          q
            .where(
              "parent",
              "=",
              cms.db
                .selectFrom("site_content as self")
                .select("self.parent")
                .where("self.id", "=", args.id as number),
            )
            .where("site_content.id", "!=", args.id as number),
      }),
  };
}
