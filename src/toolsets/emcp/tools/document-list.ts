import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Kysely, SelectQueryBuilder } from "kysely";
import { itemColumns, toItems, type ItemRow } from "../items.js";
import type { EvoDatabase } from "../schema.js";
import { type EmcpLimits, page } from "./arguments.js";
import { listResult } from "./responses.js";

type ContentQuery = SelectQueryBuilder<EvoDatabase, "site_content", object>;

/**
 * One page of documents: `where` narrows `site_content` (deleted documents are
 * always left out), `order` sorts it (ending in id, so pages never overlap);
 * one row more than asked tells whether there is a next page.
 */
export async function listDocuments(
  db: Kysely<EvoDatabase>,
  args: Record<string, unknown>,
  limits: EmcpLimits,
  where: (q: ContentQuery) => ContentQuery,
  order: (
    q: SelectQueryBuilder<EvoDatabase, "site_content", ItemRow>,
  ) => SelectQueryBuilder<EvoDatabase, "site_content", ItemRow> = (q) =>
    q.orderBy("menuindex").orderBy("id"),
): Promise<CallToolResult> {
  const { limit, offset } = page(args, limits);
  const base = where(db.selectFrom("site_content").where("deleted", "=", 0));
  const selected = base.select(itemColumns(args)) as SelectQueryBuilder<
    EvoDatabase,
    "site_content",
    ItemRow
  >;
  const rows = await order(selected)
    .limit(limit + 1)
    .offset(offset)
    .execute();
  return listResult(
    await toItems(db, rows.slice(0, limit), args),
    limit,
    offset,
    rows.length > limit,
  );
}

/** `depth` within 1..max_depth, default 1. */
export function depthOf(args: Record<string, unknown>, limits: EmcpLimits): number {
  return typeof args.depth === "number" ? Math.min(args.depth, limits.maxDepth) : 1;
}

/** The answer for a document that is not there: an empty, checked page. */
export function emptyPage(args: Record<string, unknown>, limits: EmcpLimits): CallToolResult {
  const { limit, offset } = page(args, limits);
  return listResult([], limit, offset, false);
}
