import type { CmsDatabase } from "../cms-database.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { listDocuments } from "./document-list.js";
import type { EmcpTool } from "./tool.js";

/** `evo.content.children`: the documents directly under one, by menuindex then id, deleted ones left out. */
export function contentChildren(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.content.children",
      "List the documents directly under a document, in menu order. Deleted documents are left out.",
      {
        id: p.id,
        ...p.listing,
      },
      ["id", "limit"],
    ),
    run: (cms: CmsDatabase, args) =>
      listDocuments(cms, args, limits, {
        where: (q) => q.where("parent", "=", args.id as number),
      }),
  };
}
