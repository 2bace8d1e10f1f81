import { sql, type Expression, type RawBuilder, type SqlBool } from "kysely";
import type { TvCast } from "../tools/tv-cast.js";

/** How an engine tests a numeral and reads its value, for `guardedNumber`. */
export interface NumeralSql {
  /** Whether `text` is a numeral (NUMERAL): a signed one, or an unsigned one. */
  isNumeral(text: Expression<string | null>, signed: boolean): RawBuilder<SqlBool>;
  /** A matched numeral truncated toward zero. */
  integerOf(text: Expression<string | null>): RawBuilder<number>;
  /** A matched numeral rounded half away from zero to `scale` places. */
  decimalOf(text: Expression<string | null>, scale: number): RawBuilder<number>;
}

/**
 * EngineSql.numberOf in SQL: the cast only ever sees a matched numeral.
 * Nested CASE, not `and`: only CASE makes PostgreSQL test before it casts.
 */
export function guardedNumber(
  engine: NumeralSql,
  text: Expression<string | null>,
  cast: TvCast,
): RawBuilder<number | null> {
  if (cast.type !== "DECIMAL") {
    const signed = cast.type === "SIGNED";
    return sql`case when ${engine.isNumeral(text, signed)} then ${engine.integerOf(text)} end`;
  }
  const rounded = engine.decimalOf(text, cast.scale);
  const whole = cast.precision - cast.scale;
  // A numeral no longer than `whole` fits even rounded up (it has `whole` integer digits and
  // nothing to round, or fewer): the engine reads it once, not once to check and once to answer.
  return sql`case when ${engine.isNumeral(text, true)} then case
    when length(${text}) <= ${sql.lit(whole)} then ${rounded}
    when abs(${rounded}) < ${sql.lit(10 ** whole)} then ${rounded} end end`;
}
