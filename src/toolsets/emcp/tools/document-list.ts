import type { CallToolResult } from "@modelcontextprotocol/server";
import { sql, type SelectQueryBuilder } from "kysely";
import type { CmsDatabase } from "../cms-database.js";
import { itemColumns, toItems, type ItemRow } from "../items.js";
import type { EvoDatabase } from "../schema.js";
import type { TreeRow, TreeRows } from "../tree/content-tree.js";
import { type EmcpLimits, page } from "./arguments.js";
import { listResult } from "./responses.js";

type ListDatabase = EvoDatabase & { tree: TreeRow };
/** Documents, joined to a tree walk as `tree` when the list has one. */
export type ContentQuery = SelectQueryBuilder<ListDatabase, "site_content" | "tree", object>;
export type ItemQuery = SelectQueryBuilder<ListDatabase, "site_content" | "tree", ItemRow>;

/** What a list shows: which documents, in which order. */
export interface DocumentQuery {
  /** Only the documents of this walk; its `tree.depth` can order them. */
  readonly tree?: TreeRows;
  /** Narrows the documents further. */
  readonly where?: (q: ContentQuery) => ContentQuery;
  /** Sorts them; the default is menu order. End with `site_content.id`, so pages never overlap. */
  readonly order?: (q: ItemQuery) => ItemQuery;
  /** The deleted documents instead of the others (search's `deleted: true`). */
  readonly deleted?: boolean;
}

/**
 * One page of documents. One row more than asked tells whether there is a
 * next page. Columns are qualified: a tree walk brings an `id` of its own.
 */
export async function listDocuments(
  cms: CmsDatabase,
  args: Record<string, unknown>,
  limits: EmcpLimits,
  query: DocumentQuery,
): Promise<CallToolResult> {
  const { limit, offset } = page(args, limits);
  const documents = cms.db.selectFrom("site_content");
  // Without a walk nothing names `tree`; the wider type only lets a walk's order name it.
  const joined = (
    query.tree ? documents.innerJoin(query.tree, "tree.id", "site_content.id") : documents
  ) as ContentQuery;
  const narrowed = (query.where ?? ((q) => q))(
    // A literal, not a bound value: see tvConditions.
    joined.where("site_content.deleted", "=", sql.lit(query.deleted ? 1 : 0)),
  );
  const selected = narrowed.select(
    itemColumns(args).map((c) => `site_content.${c}` as const),
  ) as ItemQuery;
  const order =
    query.order ??
    ((q: ItemQuery) => q.orderBy("site_content.menuindex").orderBy("site_content.id"));
  const rows = await order(selected)
    .limit(limit + 1)
    .offset(offset)
    .execute();
  return listResult(
    await toItems(cms.db, rows.slice(0, limit), args),
    limit,
    offset,
    rows.length > limit,
  );
}

/** Level by level (`tree.depth`); within a level, by parent, then menu order. */
export function byLevel(q: ItemQuery): ItemQuery {
  return q
    .orderBy("tree.depth")
    .orderBy("site_content.parent")
    .orderBy("site_content.menuindex")
    .orderBy("site_content.id");
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
