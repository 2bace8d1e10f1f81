import type { Kysely } from "kysely";
import { BrokerError } from "../../core/errors.js";
import type { EvoDatabase, SiteContent } from "./schema.js";

/** The columns every item carries, as Evolution stores them. */
export const ITEM_COLUMNS = [
  "id",
  "parent",
  "pagetitle",
  "longtitle",
  "description",
  "alias",
  "published",
  "deleted",
  "hidemenu",
  "menuindex",
  "template",
  "createdon",
  "editedon",
  "pub_date",
  "unpub_date",
  "isfolder",
  "type",
] as const satisfies readonly (keyof SiteContent)[];

/** The columns of a call's items: `content` and `introtext` too with `with_content`. */
export function itemColumns(args: Record<string, unknown>) {
  return [
    ...ITEM_COLUMNS,
    ...(args.with_content === true ? (["content", "introtext"] as const) : []),
  ];
}

export type ItemRow = Pick<SiteContent, (typeof ITEM_COLUMNS)[number]> &
  Partial<Pick<SiteContent, "content" | "introtext">>;

const BOOLEANS = new Set(["published", "deleted", "hidemenu", "isfolder"]);

/** A document as the contract returns it: flags as booleans, timestamps as integers. */
export function toItem(row: ItemRow, tvs?: Record<string, string | null>): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row))
    item[key] = BOOLEANS.has(key) ? Number(value) === 1 : value;
  if (tvs !== undefined) item.tvs = tvs;
  return item;
}

/** `with_tvs` entries: `name`, or `name:d` to fall back to the TV's default text. */
export interface TvRequest {
  readonly name: string;
  readonly withDefault: boolean;
}

export function parseWithTvs(entries: readonly string[] | undefined): TvRequest[] {
  return (entries ?? []).map((entry) => {
    const withDefault = entry.endsWith(":d");
    return { name: withDefault ? entry.slice(0, -2) : entry, withDefault };
  });
}

/**
 * The named TVs' values of the given documents, `{ docId: { name: value } }`.
 * A TV that does not exist is invalid params naming it.
 */
export async function loadTvs(
  db: Kysely<EvoDatabase>,
  docIds: readonly number[],
  requests: readonly TvRequest[],
): Promise<Map<number, Record<string, string | null>>> {
  const out = new Map<number, Record<string, string | null>>();
  if (requests.length === 0) return out;
  const names = [...new Set(requests.map((r) => r.name))];
  const tvs = await db
    .selectFrom("site_tmplvars")
    .select(["id", "name", "default_text"])
    .where("name", "in", names)
    .execute();
  const missing = names.filter((n) => !tvs.some((tv) => tv.name === n));
  if (missing.length > 0) {
    throw new BrokerError(
      "invalid_params",
      `with_tvs names TVs that do not exist: ${missing.join(", ")}`,
      { tvs: missing },
    );
  }
  const values =
    docIds.length === 0
      ? []
      : await db
          .selectFrom("site_tmplvar_contentvalues")
          .select(["contentid", "tmplvarid", "value"])
          .where("contentid", "in", [...docIds])
          .where(
            "tmplvarid",
            "in",
            tvs.map((tv) => tv.id),
          )
          .execute();
  const byDocAndTv = new Map(values.map((v) => [`${v.contentid}:${v.tmplvarid}`, v.value]));
  for (const id of docIds) {
    const record: Record<string, string | null> = {};
    for (const request of requests) {
      const tv = tvs.find((t) => t.name === request.name)!;
      const value = byDocAndTv.get(`${id}:${tv.id}`);
      record[request.name] = value ?? (request.withDefault ? tv.default_text : null);
    }
    out.set(id, record);
  }
  return out;
}

/** Rows as the contract's items, with `item.tvs` when the call names `with_tvs`. */
export async function toItems(
  db: Kysely<EvoDatabase>,
  rows: readonly ItemRow[],
  args: Record<string, unknown>,
): Promise<Record<string, unknown>[]> {
  const requests = parseWithTvs(args.with_tvs as string[] | undefined);
  const tvs = await loadTvs(
    db,
    rows.map((r) => r.id),
    requests,
  );
  return rows.map((r) => toItem(r, requests.length > 0 ? tvs.get(r.id) : undefined));
}
