import { sql } from "kysely";
import type { EngineSql } from "./engine-sql.js";

/**
 * MariaDB and MySQL. `$` in their REGEXP also matches before a final newline,
 * so the pattern ends in `\z`; strings become binary to compare byte-wise.
 */
export const mysqlSql: EngineSql = {
  exactText: (text) => sql`cast(${text} as binary)`,
  likeInsensitive: (text, pattern) => sql`lower(${text}) like lower(${pattern}) escape '!'`,
  matches: (text, pattern) => sql`${text} regexp ${`^${pattern.body}\\z`}`,
  integerOf: (text) => sql`cast(${text} as signed)`,
  decimalOf: (text, scale) => sql`cast(${text} as decimal(65, ${sql.lit(scale)}))`,
};
