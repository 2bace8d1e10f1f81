import { sql, type Expression, type RawBuilder } from "kysely";
import { BrokerError } from "../../../core/errors.js";
import { NUMERAL, type EngineSql } from "../engine/engine-sql.js";

/** How a TV value is read as a number: `UNSIGNED`, `SIGNED` or `DECIMAL(p,s)`. */
export type TvCast =
  | { readonly type: "UNSIGNED" | "SIGNED" }
  | { readonly type: "DECIMAL"; readonly precision: number; readonly scale: number };

/** For the input schema: the forms `parseCast` reads. */
export const CAST_PATTERN =
  "^(UNSIGNED|SIGNED|DECIMAL\\(\\s*[0-9]{1,2}\\s*,\\s*[0-9]{1,2}\\s*\\))$";
const decimal = /^DECIMAL\(\s*([0-9]{1,2})\s*,\s*([0-9]{1,2})\s*\)$/;

/** A cast as written in the call, checked; `where` names the argument in errors. */
export function parseCast(text: unknown, where: string): TvCast | undefined {
  if (text === undefined) return undefined;
  if (text === "UNSIGNED" || text === "SIGNED") return { type: text };
  const parts = typeof text === "string" ? decimal.exec(text) : null;
  if (parts) {
    const precision = Number(parts[1]);
    const scale = Number(parts[2]);
    if (precision >= 1 && precision <= 65 && scale <= 30 && scale <= precision)
      return { type: "DECIMAL", precision, scale };
  }
  throw new BrokerError(
    "invalid_params",
    `${where}: cast ${JSON.stringify(text)} is not one of UNSIGNED, SIGNED, DECIMAL(p,s) with 1 ≤ p ≤ 65, 0 ≤ s ≤ 30, s ≤ p`,
  );
}

/**
 * The number a TV value holds under `cast`, or NULL when it holds none: a
 * value that is not a plain numeral (`n/a`, empty) never matches a
 * comparison, and never reaches the engine's cast, so no query fails on it.
 * Integer casts truncate toward zero (as MariaDB reads `12.75` as 12);
 * DECIMAL rounds half away from zero and holds no number beyond p-s integer digits.
 */
export function castValue(
  engine: EngineSql,
  text: Expression<string | null>,
  cast: TvCast,
): RawBuilder<number | null> {
  if (cast.type !== "DECIMAL") {
    const numeral = cast.type === "UNSIGNED" ? NUMERAL.unsigned : NUMERAL.signed;
    return sql`case when ${engine.matches(text, numeral)} then ${engine.integerOf(text)} end`;
  }
  const rounded = engine.decimalOf(text, cast.scale);
  const limit = sql.lit(10 ** (cast.precision - cast.scale));
  // Nested, not `and`: only CASE makes PostgreSQL test the numeral before it casts.
  return sql`case when ${engine.matches(text, NUMERAL.signed)} then case when abs(${rounded}) < ${limit} then ${rounded} end end`;
}

/** The value a cast comparison compares with: a number, or a string that is a plain numeral. */
export function castOperand(value: unknown, cast: TvCast, where: string): number {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^-?[0-9]+(\.[0-9]+)?$/.test(value)) return Number(value);
  throw new BrokerError(
    "invalid_params",
    `${where}: value ${JSON.stringify(value)} is not a number, which cast ${cast.type} compares with`,
  );
}
