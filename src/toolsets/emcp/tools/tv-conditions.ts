import { sql, type SqlBool } from "kysely";
import { BrokerError } from "../../../contract/errors.js";
import type { CmsDatabase } from "../cms-database.js";
import type { SiteTmplvarContentvalue } from "../schema.js";
import { resolveTvs, withTvDefault, type TvDefinition } from "../template-variables.js";
import type { ContentQuery, ItemQuery } from "./document-list.js";
import { comparison, type Operator } from "./filter-operators.js";
import { castOperand, parseCast, type TvCast } from "./tv-cast.js";

/** A `tv_filters` entry: `{ tv, op, value, cast, use_default }`. */
interface TvFilter {
  readonly tv: string;
  readonly op: Operator;
  readonly value: unknown;
  readonly cast: TvCast | undefined;
  readonly useDefault: boolean;
  readonly where: string;
}

/** A `tv_order` entry: `{ tv, dir, cast, use_default }`. */
interface TvOrder {
  readonly tv: string;
  readonly dir: "asc" | "desc";
  readonly cast: TvCast | undefined;
  readonly useDefault: boolean;
}

type TvRow = SiteTmplvarContentvalue;

const COMPARISONS: ReadonlySet<Operator> = new Set(["=", "!=", ">", ">=", "<", "<="]);

type Entry = Record<string, unknown>;

/**
 * A search's TV conditions and TV orders, checked and bound to their TVs
 * before any document is read: an unknown TV, a cast with an operator that
 * does not compare, or a value a cast cannot compare with is invalid params.
 */
export async function tvConditions(
  cms: CmsDatabase,
  filterEntries: readonly Entry[],
  orderEntries: readonly Entry[],
) {
  const filters: TvFilter[] = filterEntries.map((f, i) => {
    const where = `tv_filters[${i}]`;
    const cast = parseCast(f.cast, where);
    const op = f.op as Operator;
    if (cast && !COMPARISONS.has(op)) {
      throw new BrokerError(
        "invalid_params",
        `${where}: cast applies to =, !=, >, >=, <, <= only, not to op "${op}"`,
      );
    }
    if ((op === "null" || op === "!null") && f.value !== undefined && f.value !== null)
      throw new BrokerError("invalid_params", `${where}: op "${op}" takes no value`);
    const value = cast ? castOperand(f.value, cast, where) : f.value;
    return { tv: f.tv as string, op, value, cast, useDefault: f.use_default === true, where };
  });
  const orders: TvOrder[] = orderEntries.map((o, i) => ({
    tv: o.tv as string,
    dir: o.dir === "desc" ? "desc" : "asc",
    cast: parseCast(o.cast, `tv_order[${i}]`),
    useDefault: o.use_default === true,
  }));
  const tvs = await resolveTvs(cms.db, [
    ...filters.map((f) => ({ name: f.tv, what: `${f.where}.tv` })),
    ...orders.map((o, i) => ({ name: o.tv, what: `tv_order[${i}].tv` })),
  ]);
  // Each filter joins its TV's value row, or shares the join of an earlier filter on the same
  // TV when both drop documents without a value (a price range: one join, two conditions); an
  // order reuses a filter's join of the same TV, or joins its own. Evolution keeps one row
  // per (tmplvarid, contentid), so no join repeats a document.
  type Join = { alias: string; tv: TvDefinition; inner: boolean; rank: number };
  const joins: Join[] = [];
  const filterJoins = filters.map((f, i) => {
    // Without a default only `null` can pass a document without a value: the others may drop it.
    const inner = !f.useDefault && f.op !== "null";
    // Joined first: the filters that compare text as it is, then those under a cast, then the
    // rest. Where the planner cannot tell the filters apart (SQLite, one index for every TV),
    // it follows this order: a cast numeral, checked per row, is then checked only for the
    // documents the plain filters left, not for every document with a value.
    const rank = inner ? (f.cast ? 1 : 0) : 2;
    const shared = inner && joins.find((j) => j.inner && j.tv.name === f.tv);
    if (shared) {
      shared.rank = Math.min(shared.rank, rank);
      return shared;
    }
    const own = { alias: `tv_filter_${i}`, tv: tvs.get(f.tv)!, inner, rank };
    joins.push(own);
    return own;
  });
  const orderJoins = orders.map((o, i) => {
    const shared = joins.find((j) => j.tv.name === o.tv);
    if (shared) return shared;
    const own = { alias: `tv_order_${i}`, tv: tvs.get(o.tv)!, inner: false, rank: 2 };
    joins.push(own);
    return own;
  });
  const joinOrder = [...joins].sort((a, b) => a.rank - b.rank);
  const textOf = (join: Join, useDefault: boolean) =>
    withTvDefault(sql.ref(`${join.alias}.value`), join.tv, useDefault);
  return {
    /** Joins the TV values the filters and orders read, and keeps the documents every filter passes. */
    apply(q: ContentQuery): ContentQuery {
      let joined = q;
      for (const { alias, tv, inner } of joinOrder) {
        // The alias is made here, so the typed builder cannot name it: the join is written out.
        const table = sql<TvRow>`${sql.table("site_tmplvar_contentvalues")}`.as(alias);
        // The TV id (an integer the database gave) is written as a literal: SQLite plans a
        // bound `?` blind and, with statistics, would then scan every document first.
        const on = sql<SqlBool>`${sql.ref(`${alias}.contentid`)} = ${sql.ref("site_content.id")} and ${sql.ref(`${alias}.tmplvarid`)} = ${sql.lit(tv.id)}`;
        joined = (inner
          ? joined.innerJoin(table, (join) => join.on(on))
          : joined.leftJoin(table, (join) => join.on(on))) as unknown as ContentQuery;
      }
      const bounds = rangeBounds(filters, filterJoins);
      return joined.where((eb) =>
        eb.and(
          filters.flatMap((f, i) => {
            const upper = bounds.get(i);
            if (upper === null) return [];
            const text = textOf(filterJoins[i]!, f.useDefault);
            const expr = f.cast ? cms.sql.numberOf(text, f.cast) : text;
            // Compared first where the engine has it: the exact reading then runs on fewer rows.
            const quick = f.cast && cms.sql.quickNumberOf?.(text, f.cast);
            const readings = quick ? [quick, expr] : [expr];
            if (upper !== undefined)
              return readings.map((r) => eb.between(r, f.value as number, upper));
            const type = f.cast ? "number" : "exact-text";
            return readings.map((r) =>
              comparison(eb, cms.sql, { expr: r, type }, f.op, f.value, f.where),
            );
          }),
        ),
      );
    },
    /**
     * Sorts by the TV orders. Documents without a value (or, under a cast,
     * without a number) come last either way: engines disagree on where NULL sorts.
     */
    orderBy(q: ItemQuery): ItemQuery {
      let ordered = q;
      orders.forEach((o, i) => {
        const text = textOf(orderJoins[i]!, o.useDefault);
        const value = o.cast ? cms.sql.numberOf(text, o.cast) : cms.sql.exactText(text);
        ordered = cms.sql.nullsLast
          ? ordered.orderBy(value, (by) => (o.dir === "desc" ? by.desc() : by.asc()).nullsLast())
          : ordered
              .orderBy(sql`case when ${value} is null then 1 else 0 end`)
              .orderBy(value, o.dir);
      });
      return ordered;
    },
  };
}

/**
 * The ranges among the filters: a `>=` and a `<=` on one joined value under
 * one cast become one BETWEEN, so that the engine reads the number once per
 * row (SQLite evaluates BETWEEN's operand once, and each comparison's anew).
 * Maps the `>=` filter's index to the upper bound, and the `<=` filter's to
 * null (it is said by the BETWEEN).
 */
function rangeBounds(
  filters: readonly TvFilter[],
  joins: readonly object[],
): Map<number, number | null> {
  const bounds = new Map<number, number | null>();
  filters.forEach((lower, i) => {
    if (lower.op !== ">=" || !lower.cast || bounds.has(i)) return;
    const upper = filters.findIndex(
      (f, j) =>
        f.op === "<=" &&
        !bounds.has(j) &&
        joins[j] === joins[i] &&
        JSON.stringify(f.cast) === JSON.stringify(lower.cast),
    );
    if (upper < 0) return;
    bounds.set(i, filters[upper]!.value as number);
    bounds.set(upper, null);
  });
  return bounds;
}
