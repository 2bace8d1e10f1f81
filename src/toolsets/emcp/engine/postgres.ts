import { sql } from "kysely";
import type { EngineSql } from "./engine-sql.js";
import { guardedNumber, type NumeralSql } from "./guarded-number.js";

const numerals: NumeralSql = {
  matches: (text, pattern) => sql`${text} ~ ${`^${pattern}$`}`,
  integerOf: (text) => sql`trunc(cast(${text} as numeric))`,
  decimalOf: (text, scale) => sql`round(cast(${text} as numeric), ${sql.lit(scale)})`,
};

/** PostgreSQL: the "C" collation compares bytes; numerals go through numeric, never a failing cast. */
export const postgresSql: EngineSql = {
  exactText: (text) => sql`${text} collate "C"`,
  likeInsensitive: (text, pattern) => sql`${text} ilike ${pattern} escape '!'`,
  numberOf: (text, cast) => guardedNumber(numerals, text, cast),
  nullsLast: true,
};
