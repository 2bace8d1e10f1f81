import type { Kysely } from "kysely";
import { ITEM_COLUMNS, loadTvs, parseWithTvs, toItem } from "../items.js";
import type { EvoDatabase } from "../schema.js";
import { type EmcpLimits, page, schemaParts, toolDefinition } from "./arguments.js";
import { listResult } from "./responses.js";
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
    async run(db: Kysely<EvoDatabase>, args) {
      const { limit, offset } = page(args, limits);
      const withContent = args.with_content === true;
      // One row more than asked tells whether there is a next page.
      const rows = await db
        .selectFrom("site_content")
        .select([...ITEM_COLUMNS, ...(withContent ? (["content", "introtext"] as const) : [])])
        .where("parent", "=", args.id as number)
        .where("deleted", "=", 0)
        .orderBy("menuindex")
        .orderBy("id")
        .limit(limit + 1)
        .offset(offset)
        .execute();
      const pageRows = rows.slice(0, limit);
      const requests = parseWithTvs(args.with_tvs as string[] | undefined);
      const tvs = await loadTvs(
        db,
        pageRows.map((r) => r.id),
        requests,
      );
      const items = pageRows.map((r) => toItem(r, requests.length > 0 ? tvs.get(r.id) : undefined));
      return listResult(items, limit, offset, rows.length > limit);
    },
  };
}
