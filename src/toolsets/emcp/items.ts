import type { Kysely } from "kysely";
import type { EvoDatabase, SiteContent } from "./schema.js";
import { resolveTvs } from "./template-variables.js";

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
 * The named TVs' values of the given documents, `{ docId: { name: value } }`;
 * `name:d` falls back to the TV's default where the document's template
 * carries the TV. A TV that does not exist is invalid params naming it.
 */
export async function loadTvs(
  db: Kysely<EvoDatabase>,
  docs: readonly { id: number; template: number }[],
  requests: readonly TvRequest[],
): Promise<Map<number, Record<string, string | null>>> {
  const out = new Map<number, Record<string, string | null>>();
  if (requests.length === 0) return out;
  const tvs = await resolveTvs(
    db,
    requests.map((r) => ({ name: r.name, what: "with_tvs" })),
  );
  const values =
    docs.length === 0
      ? []
      : await db
          .selectFrom("site_tmplvar_contentvalues")
          .select(["contentid", "tmplvarid", "value"])
          .where(
            "contentid",
            "in",
            docs.map((d) => d.id),
          )
          .where(
            "tmplvarid",
            "in",
            [...tvs.values()].map((tv) => tv.id),
          )
          .execute();
  const byDocAndTv = new Map(values.map((v) => [`${v.contentid}:${v.tmplvarid}`, v.value]));
  for (const doc of docs) {
    const record: Record<string, string | null> = {};
    for (const request of requests) {
      const tv = tvs.get(request.name)!;
      const fallback =
        request.withDefault && tv.templates.has(doc.template) ? tv.defaultText : null;
      record[request.name] = byDocAndTv.get(`${doc.id}:${tv.id}`) ?? fallback;
    }
    out.set(doc.id, record);
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
  const tvs = await loadTvs(db, rows, requests);
  return rows.map((r) => toItem(r, requests.length > 0 ? tvs.get(r.id) : undefined));
}
