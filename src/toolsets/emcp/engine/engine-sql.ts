import type { Expression, RawBuilder, SqlBool } from "kysely";

/**
 * The few expressions whose SQL differs between the engines the toolset
 * reads, written so that the same filter selects the same rows on each.
 * One small implementation per engine, beside this file.
 */
export interface EngineSql {
  /** `text` compared byte by byte (code-point order), whatever the column's collation. */
  exactText(text: Expression<string | null>): RawBuilder<string | null>;
  /** `text LIKE pattern` with `!` as the escape, ASCII letters case-insensitively. */
  likeInsensitive(text: Expression<string | null>, pattern: string): RawBuilder<SqlBool>;
  /** Whether `text` matches `pattern`, a regular expression anchored at both ends. */
  matches(text: Expression<string | null>, pattern: NumeralPattern): RawBuilder<SqlBool>;
  /** A numeral's value truncated toward zero; only ever applied to a matched numeral. */
  integerOf(text: Expression<string | null>): RawBuilder<number>;
  /** A numeral's value rounded half away from zero to `scale` places; only applied to a matched numeral. */
  decimalOf(text: Expression<string | null>, scale: number): RawBuilder<number>;
}

/**
 * Plain decimal numerals of up to 18 integer digits: what a TV value must be
 * to count as a number under a cast. Anything else (`n/a`, `1e3`, ` 12`)
 * holds no number, so it never matches and never reaches a cast that could fail.
 */
export const NUMERAL = {
  signed: { body: "-?[0-9]{1,18}([.][0-9]+)?" },
  unsigned: { body: "[0-9]{1,18}([.][0-9]+)?" },
} as const;
export type NumeralPattern = (typeof NUMERAL)[keyof typeof NUMERAL];
