import type Database from "better-sqlite3";
import { sql } from "kysely";
import { NUMERAL, type EngineSql } from "./engine-sql.js";

/**
 * SQLite's comparisons are byte-wise and its LIKE ASCII-case-insensitive
 * already. Numbers come from one function of the connection (below): SQLite
 * has no REGEXP and rounds in binary floating point (2.675 → 2.67).
 */
export const sqliteSql: EngineSql = {
  exactText: (text) => sql`${text} collate binary`,
  likeInsensitive: (text, pattern) => sql`${text} like ${pattern} escape '!'`,
  numberOf: (text, cast) =>
    cast.type === "DECIMAL"
      ? sql`emcp_number(${text}, 1, ${cast.precision}, ${cast.scale})`
      : sql`emcp_number(${text}, ${cast.type === "SIGNED" ? 1 : 0}, 0, -1)`,
  nullsLast: true,
};

const signed = new RegExp(`^${NUMERAL.signed}$`);
const unsigned = new RegExp(`^${NUMERAL.unsigned}$`);

/**
 * `emcp_number(text, signed, precision, scale)`: EngineSql.numberOf for
 * SQLite; scale -1 truncates to an integer, else DECIMAL(precision, scale),
 * rounded on the decimal digits themselves.
 */
export function addSqliteFunctions(database: Database.Database): void {
  database.function(
    "emcp_number",
    { deterministic: true },
    (text: unknown, isSigned: unknown, precision: unknown, scale: unknown) => {
      if (typeof text !== "string" || !(isSigned ? signed : unsigned).test(text)) return null;
      // A matched numeral: an optional "-", digits, and perhaps "." and digits.
      const sign = text.startsWith("-") ? "-" : "";
      const [whole, fraction = ""] = text.slice(sign.length).split(".");
      if (Number(scale) < 0) return sign ? -BigInt(whole!) : BigInt(whole!);
      const places = Number(scale);
      const kept = BigInt(whole! + fraction.slice(0, places).padEnd(places, "0"));
      const rounded = (fraction[places] ?? "0") >= "5" ? kept + 1n : kept;
      const digits = rounded.toString().padStart(places + 1, "0");
      const point = digits.length - places;
      if (point > Number(precision) - places && digits.slice(0, point) !== "0") return null;
      return Number(`${sign}${digits.slice(0, point)}.${digits.slice(point)}0`);
    },
  );
}
