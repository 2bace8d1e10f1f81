import type { Kysely } from "kysely";
import type { EvoDatabase } from "../schema.js";
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
        with_tvs: p.with_tvs,
        with_content: p.with_content,
        limit: p.limit,
        offset: p.offset,
      },
      ["id", "limit"],
    ),
    run: (db: Kysely<EvoDatabase>, args) =>
      listDocuments(db, args, limits, (q) => q.where("parent", "=", args.id as number)),
  };
}
