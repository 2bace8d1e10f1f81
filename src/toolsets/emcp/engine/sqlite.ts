import type Database from "better-sqlite3";
import { sql, type Expression, type RawBuilder } from "kysely";
import type { TvCast } from "../tools/tv-cast.js";
import { NUMERAL, NUMERAL_DIGITS, type EngineSql } from "./engine-sql.js";

/**
 * SQLite's comparisons are byte-wise and its LIKE ASCII-case-insensitive
 * already. Numbers come from one function of the connection (below): SQLite
 * has no REGEXP and rounds in binary floating point (2.675 → 2.67).
 */
export const sqliteSql: EngineSql = {
  exactText: (text) => sql`${text} collate binary`,
  likeInsensitive: (text, pattern) => sql`${text} like ${pattern} escape '!'`,
  numberOf,
  quickNumberOf,
  nullsLast: true,
};

/**
 * EngineSql.numberOf for SQLite. Most TV numerals are written as SQLite
 * itself writes the number ("450", "12.25"): those are read by CAST in the
 * engine, since a search reads one per row and a call into JavaScript costs
 * more than the whole CAST path. The rest ("007", "2.675" under DECIMAL(5,2),
 * "n/a") go to `emcp_number`, whose reading the fast path must equal. (A
 * number stored as a number, in a column not of TEXT affinity, is read as
 * that number here; `emcp_number` reads text only.)
 */
function numberOf(text: Expression<string | null>, cast: TvCast): RawBuilder<number | null> {
  const asInteger = sql`cast(cast(${text} as integer) as text) = ${text}`;
  // SQLite writes a large or small REAL with an exponent, which no numeral has.
  const asReal = sql`cast(cast(${text} as real) as text) = ${text} and instr(${text}, 'e') = 0`;
  if (cast.type !== "DECIMAL") {
    const signed = cast.type === "SIGNED";
    const sign = signed ? sql`` : sql` and substr(${text}, 1, 1) <> '-'`;
    return sql<number | null>`(case when ${text} is null then null
      when (${asInteger} and length(${text}) <= ${sql.lit(NUMERAL_DIGITS)} or ${asReal})${sign}
        then cast(${text} as integer)
      else emcp_number(${text}, ${sql.lit(signed ? 1 : 0)}, 0, -1) end)`;
  }
  // Lengths count a sign and a leading zero as digits: such values take the slow path. A
  // numeral has at most NUMERAL_DIGITS integer digits, whatever room the precision leaves.
  const whole = sql.lit(Math.min(cast.precision - cast.scale, NUMERAL_DIGITS));
  return sql<number | null>`(case when ${text} is null then null
    when ${asInteger} and length(${text}) <= ${whole} then cast(${text} as integer)
    when ${asReal} and length(${text}) - instr(${text}, '.') <= ${sql.lit(cast.scale)}
      and instr(${text}, '.') - 1 <= ${whole} then cast(${text} as real)
    else emcp_number(${text}, 1, ${sql.lit(cast.precision)}, ${sql.lit(cast.scale)}) end)`;
}

/**
 * EngineSql.quickNumberOf for SQLite, for the integer casts: CAST reads the
 * longest integer prefix, which for a numeral (at most 18 integer digits) is
 * the number truncated, as `numberOf` reads it. A range filter on it drops
 * most rows before their numeral is checked. DECIMAL has none: CAST does not
 * round on the decimal digits.
 */
function quickNumberOf(
  text: Expression<string | null>,
  cast: TvCast,
): RawBuilder<number> | undefined {
  return cast.type === "DECIMAL" ? undefined : sql<number>`cast(${text} as integer)`;
}

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
