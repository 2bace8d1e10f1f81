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
/** Integers of up to 15 digits are exact as JavaScript numbers (below 2^53). */
const SAFE_DIGITS = 15;
const MINUS = 45;
const ZERO = 48;

/**
 * `emcp_number(text, signed, precision, scale)`: EngineSql.numberOf for
 * SQLite; scale -1 truncates to an integer, else DECIMAL(precision, scale),
 * rounded on the decimal digits themselves.
 */
export function addSqliteFunctions(database: Database.Database): void {
  database.function(
    "emcp_number",
    { deterministic: true },
    (text: unknown, isSigned: unknown, precision: unknown, scale: unknown) =>
      typeof text === "string" && (isSigned ? signed : unsigned).test(text)
        ? numberOfNumeral(text, Number(precision), Number(scale))
        : null,
  );
}

/**
 * The value of a matched numeral (an optional "-", digits, perhaps "." and
 * digits). A search calls this once per row it reads, so the common cases
 * (few digits, nothing to round) stay off BigInt and string building.
 */
function numberOfNumeral(text: string, precision: number, scale: number): number | bigint | null {
  const wholeStart = text.charCodeAt(0) === MINUS ? 1 : 0;
  const point = text.indexOf(".");
  const wholeEnd = point < 0 ? text.length : point;
  const fractionDigits = point < 0 ? 0 : text.length - point - 1;
  if (scale < 0) {
    // `|| 0`: "-0" is zero, as it is to the other engines.
    if (wholeEnd - wholeStart <= SAFE_DIGITS) return Number(text.slice(0, wholeEnd)) || 0;
    const whole = BigInt(text.slice(wholeStart, wholeEnd));
    return wholeStart ? -whole : whole;
  }
  if (fractionDigits <= scale) {
    let firstDigit = wholeStart;
    while (firstDigit < wholeEnd && text.charCodeAt(firstDigit) === ZERO) firstDigit++;
    return wholeEnd - firstDigit > precision - scale ? null : Number(text);
  }
  const sign = wholeStart ? "-" : "";
  const whole = text.slice(wholeStart, wholeEnd);
  const fraction = text.slice(point + 1);
  const kept = BigInt(whole + fraction.slice(0, scale).padEnd(scale, "0"));
  const rounded = (fraction[scale] ?? "0") >= "5" ? kept + 1n : kept;
  const digits = rounded.toString().padStart(scale + 1, "0");
  const integerEnd = digits.length - scale;
  if (integerEnd > precision - scale && digits.slice(0, integerEnd) !== "0") return null;
  return Number(`${sign}${digits.slice(0, integerEnd)}.${digits.slice(integerEnd)}0`);
}
