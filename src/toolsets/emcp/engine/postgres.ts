import { sql } from "kysely";
import { NUMERAL_DIGITS, type EngineSql } from "./engine-sql.js";
import { guardedNumber, type NumeralSql } from "./guarded-number.js";

/**
 * NUMERAL with its bound on integer digits checked by length (only for long
 * values): PostgreSQL's regular expressions run `{1,18}` as eighteen states,
 * which more than doubles the time a search spends reading each row's value.
 */
const unboundedNumeral = { signed: "^-?[0-9]+([.][0-9]+)?$", unsigned: "^[0-9]+([.][0-9]+)?$" };

const numerals: NumeralSql = {
  isNumeral: (text, signed) =>
    sql`(${text} ~ ${signed ? unboundedNumeral.signed : unboundedNumeral.unsigned} and (length(${text}) <= ${sql.lit(NUMERAL_DIGITS)} or length(ltrim(split_part(${text}, '.', 1), '-')) <= ${sql.lit(NUMERAL_DIGITS)}))`,
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
