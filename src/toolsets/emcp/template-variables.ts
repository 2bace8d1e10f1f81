import { sql, type Expression, type Kysely } from "kysely";
import { BrokerError } from "../../contract/errors.js";
import type { EvoDatabase } from "./schema.js";

/** A TV as the tools use it: its id, its default text and the templates that carry it. */
export interface TvDefinition {
  readonly id: number;
  readonly name: string;
  readonly defaultText: string;
  readonly templates: ReadonlySet<number>;
}

/**
 * The named TVs, by name. A name no TV has is invalid params naming it:
 * `what` says which argument named it (`with_tvs`, `tv_filters[0].tv`, …).
 */
export async function resolveTvs(
  db: Kysely<EvoDatabase>,
  names: readonly { name: string; what: string }[],
): Promise<Map<string, TvDefinition>> {
  const out = new Map<string, TvDefinition>();
  if (names.length === 0) return out;
  const unique = [...new Set(names.map((n) => n.name))];
  // One query, not one for the TVs and one for their templates: a search pays it on every call.
  const rows = await db
    .selectFrom("site_tmplvars")
    .leftJoin("site_tmplvar_templates", "site_tmplvar_templates.tmplvarid", "site_tmplvars.id")
    .select([
      "site_tmplvars.id",
      "site_tmplvars.name",
      "site_tmplvars.default_text",
      "site_tmplvar_templates.templateid",
    ])
    .where("site_tmplvars.name", "in", unique)
    .execute();
  const missing = names.filter((n) => !rows.some((row) => row.name === n.name));
  if (missing.length > 0) {
    throw new BrokerError(
      "invalid_params",
      `no TV is named ${missing.map((m) => `"${m.name}" (${m.what})`).join(", ")}; evo.model.list with model SiteTmplvar lists the TVs`,
      { tvs: missing.map((m) => m.name) },
    );
  }
  const templatesOf = new Map<string, Set<number>>();
  for (const row of rows) {
    let templates = templatesOf.get(row.name);
    if (!templates) {
      templatesOf.set(row.name, (templates = new Set()));
      out.set(row.name, { id: row.id, name: row.name, defaultText: row.default_text, templates });
    }
    if (row.templateid !== null) templates.add(row.templateid);
  }
  return out;
}

/**
 * A document's TV value: `stored` (a value row joined to the outer
 * `site_content` row, NULL where there is none), or with `useDefault` the
 * TV's default text where the document's template carries the TV.
 */
export function withTvDefault(
  stored: Expression<string | null>,
  tv: TvDefinition,
  useDefault: boolean,
): Expression<string | null> {
  if (!useDefault || tv.templates.size === 0) return stored;
  return sql<
    string | null
  >`coalesce(${stored}, case when ${sql.ref("site_content.template")} in (${sql.join([
    ...tv.templates,
  ])}) then ${tv.defaultText} end)`;
}
