import { type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { BrokerError } from "../../../contract/errors.js";
import type { EngineSql } from "../engine/engine-sql.js";
import { INT_MAX, INT_MIN, MAX_IN_LIST } from "./arguments.js";

export const OPERATORS = [
  "=",
  "!=",
  ">",
  ">=",
  "<",
  "<=",
  "in",
  "not_in",
  "like",
  "like-l",
  "like-r",
  "null",
  "!null",
] as const;
export type Operator = (typeof OPERATORS)[number];

/** `!` escapes LIKE's wildcards (EngineSql.likeInsensitive names it): every engine reads it the same way. */
const escapeLike = (value: string) => value.replace(/[!%_]/g, (c) => `!${c}`);

/**
 * What is compared, and how its values are read, so that every engine
 * answers alike (PostgreSQL refuses what MariaDB and SQLite would coerce):
 *
 * - `integer`: an integer column; values are integers an INT holds (or
 *   booleans, as 0 and 1), and the LIKE operators do not apply;
 * - `text`: a text column, in the engine's collation; values are compared as text;
 * - `exact-text`: TV values, compared byte by byte on every engine (a MariaDB
 *   collation that ignores case answers as SQLite and PostgreSQL do);
 * - `number`: a TV value read as a number under a cast; values were checked by the cast.
 */
export interface Compared {
  readonly expr: Expression<unknown>;
  readonly type: "integer" | "text" | "exact-text" | "number";
}

/**
 * One structured comparison of a column (named from a fixed list) with a
 * bound value. `like` is contains, `like-r` starts with, `like-l` ends with,
 * with `%` and `_` in the value matched literally and ASCII letters in either
 * case; `in`/`not_in` take a non-empty array of at most MAX_IN_LIST values;
 * `null`/`!null` take no value.
 */
export function comparison<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  engine: EngineSql,
  compared: Compared,
  op: Operator,
  value: unknown,
  where: string,
): Expression<SqlBool> {
  const column =
    compared.type === "exact-text"
      ? engine.exactText(compared.expr as Expression<string | null>)
      : compared.expr;
  const operand = (v: unknown, what: string): string | number => {
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") {
      throw new BrokerError("invalid_params", `${where}: op "${op}" needs ${what}`);
    }
    const plain = typeof v === "boolean" ? Number(v) : v;
    if (compared.type === "integer") {
      if (
        typeof plain !== "number" ||
        !Number.isInteger(plain) ||
        plain < INT_MIN ||
        plain > INT_MAX
      )
        throw new BrokerError(
          "invalid_params",
          `${where}: ${JSON.stringify(v)} is not an integer from ${INT_MIN} to ${INT_MAX}, which this field holds`,
        );
      return plain;
    }
    // Text is compared with text: MariaDB would compare a string with a number as numbers.
    return compared.type === "number" ? plain : String(plain);
  };
  switch (op) {
    case "=":
    case "!=":
    case ">":
    case ">=":
    case "<":
    case "<=":
      return eb(
        column as never,
        op === "!=" ? "<>" : op,
        operand(value, "a string, number or boolean value") as never,
      );
    case "in":
    case "not_in": {
      if (!Array.isArray(value) || value.length === 0) {
        throw new BrokerError(
          "invalid_params",
          `${where}: op "${op}" needs a non-empty array of strings or numbers`,
        );
      }
      if (value.length > MAX_IN_LIST) {
        throw new BrokerError(
          "invalid_params",
          `${where}: op "${op}" takes at most ${MAX_IN_LIST} values, not ${value.length}; split the list over several calls`,
          { max_values: MAX_IN_LIST },
        );
      }
      const list = value.map((v) => operand(v, "an array of strings or numbers"));
      return eb(column as never, op === "in" ? "in" : "not in", list as never);
    }
    case "like":
    case "like-l":
    case "like-r": {
      if (compared.type === "integer" || compared.type === "number")
        throw new BrokerError(
          "invalid_params",
          `${where}: op "${op}" compares text, and this ${compared.type === "integer" ? "field is an integer" : "value is read as a number"}; use =, <, >, in`,
        );
      const text = escapeLike(String(operand(value, "a string, number or boolean value")));
      const pattern = op === "like" ? `%${text}%` : op === "like-r" ? `${text}%` : `%${text}`;
      return engine.likeInsensitive(compared.expr as Expression<string | null>, pattern);
    }
    case "null":
    case "!null":
      if (value !== undefined && value !== null)
        throw new BrokerError("invalid_params", `${where}: op "${op}" takes no value`);
      return eb(compared.expr as never, op === "null" ? "is" : "is not", null as never);
  }
}
