import type { Expression, RawBuilder, SqlBool } from "kysely";
import type { TvCast } from "../tools/tv-cast.js";

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
  /**
   * The number `text` holds under `cast`, or NULL when it holds none (see
   * NUMERAL): integer casts truncate toward zero, DECIMAL(p,s) rounds half away
   * from zero and holds no number beyond p-s integer digits. Never fails.
   */
  numberOf(text: Expression<string | null>, cast: TvCast): RawBuilder<number | null>;
  /**
   * Where the engine has one, a cheaper reading under `cast` that equals
   * `numberOf` wherever that holds a number (elsewhere it may be anything). A
   * filter compares it first, so that the engine reads the exact number only
   * for the rows the cheap comparison lets through.
   */
  quickNumberOf?(text: Expression<string | null>, cast: TvCast): RawBuilder<number> | undefined;
  /** Whether the engine writes `NULLS LAST` (else a sort key of its own puts NULLs last). */
  readonly nullsLast: boolean;
}

/**
 * Plain decimal numerals of up to 18 integer digits: what a TV value must be
 * to count as a number under a cast. Anything else (`n/a`, `1e3`, ` 12`)
 * holds no number, so it never matches and never reaches a cast that could fail.
 */
export const NUMERAL = {
  signed: "-?[0-9]{1,18}([.][0-9]+)?",
  unsigned: "[0-9]{1,18}([.][0-9]+)?",
} as const;
/** NUMERAL's bound on integer digits, for an engine that checks it apart from the pattern. */
export const NUMERAL_DIGITS = 18;
