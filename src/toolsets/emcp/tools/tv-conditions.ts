import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { BrokerError } from "../../../core/errors.js";
import type { CmsDatabase } from "../cms-database.js";
import { resolveTvs, tvValueOf, type TvDefinition } from "../template-variables.js";
import { comparison, type Operator } from "./filter-operators.js";
import { castOperand, castValue, parseCast, type TvCast } from "./tv-cast.js";

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

/** One key of an ORDER BY. */
export interface SortKey {
  readonly expr: Expression<unknown>;
  readonly dir: "asc" | "desc";
}

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
  const valueOf = (name: string, cast: TvCast | undefined, useDefault: boolean) => {
    const text = tvValueOf(cms.db, tvs.get(name) as TvDefinition, useDefault);
    return cast ? castValue(cms.sql, text, cast) : text;
  };
  return {
    /** Every filter, all of which a document must pass. */
    where<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>): Expression<SqlBool> {
      return eb.and(
        filters.map((f) =>
          comparison(
            eb,
            cms.sql,
            { expr: valueOf(f.tv, f.cast, f.useDefault), text: f.cast === undefined },
            f.op,
            f.value,
            f.where,
          ),
        ),
      );
    },
    /**
     * Sort keys, in order. Documents without a value (or, under a cast, without
     * a number) come last either way: engines disagree on where NULL sorts.
     */
    orderKeys(): SortKey[] {
      return orders.flatMap((o) => {
        const value = valueOf(o.tv, o.cast, o.useDefault);
        const key = o.cast ? value : cms.sql.exactText(value as Expression<string | null>);
        return [
          { expr: sql`case when ${value} is null then 1 else 0 end`, dir: "asc" as const },
          { expr: key, dir: o.dir },
        ];
      });
    },
  };
}
