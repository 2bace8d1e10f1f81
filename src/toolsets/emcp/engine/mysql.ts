import { sql } from "kysely";
import { NUMERAL, type EngineSql } from "./engine-sql.js";
import { guardedNumber, type NumeralSql } from "./guarded-number.js";

/** `$` in REGEXP also matches before a final newline: `\z` ends the pattern. */
const numerals: NumeralSql = {
  isNumeral: (text, signed) =>
    sql`${text} regexp ${`^${signed ? NUMERAL.signed : NUMERAL.unsigned}\\z`}`,
  integerOf: (text) => sql`cast(${text} as signed)`,
  decimalOf: (text, scale) => sql`cast(${text} as decimal(65, ${sql.lit(scale)}))`,
};

/** MariaDB and MySQL: strings become binary to compare byte-wise. */
export const mysqlSql: EngineSql = {
  exactText: (text) => sql`cast(${text} as binary)`,
  likeInsensitive: (text, pattern) => sql`lower(${text}) like lower(${pattern}) escape '!'`,
  numberOf: (text, cast) => guardedNumber(numerals, text, cast),
  nullsLast: false,
};
