import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { BrokerError } from "../../../core/errors.js";

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

/** `!` escapes LIKE's wildcards: the one escape character every engine reads the same way. */
const LIKE_ESCAPE = "!";
const escapeLike = (value: string) => value.replace(/[!%_]/g, (c) => LIKE_ESCAPE + c);

/**
 * One structured comparison of a column (named from a fixed list) with a
 * bound value. `like` is contains, `like-r` starts with, `like-l` ends with,
 * with `%` and `_` in the value matched literally; `in`/`not_in` take a
 * non-empty array; `null`/`!null` take no value.
 */
export function comparison<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  column: Expression<unknown>,
  op: Operator,
  value: unknown,
  where: string,
): Expression<SqlBool> {
  const scalar = () => {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      throw new BrokerError(
        "invalid_params",
        `${where}: op "${op}" needs a string, number or boolean value`,
      );
    }
    return typeof value === "boolean" ? Number(value) : value;
  };
  switch (op) {
    case "=":
    case "!=":
    case ">":
    case ">=":
    case "<":
    case "<=":
      return eb(column as never, op === "!=" ? "<>" : op, scalar() as never);
    case "in":
    case "not_in": {
      if (
        !Array.isArray(value) ||
        value.length === 0 ||
        !value.every((v) => typeof v === "string" || typeof v === "number")
      ) {
        throw new BrokerError(
          "invalid_params",
          `${where}: op "${op}" needs a non-empty array of strings or numbers`,
        );
      }
      return eb(column as never, op === "in" ? "in" : "not in", value as never);
    }
    case "like":
    case "like-l":
    case "like-r": {
      const text = escapeLike(String(scalar()));
      const pattern = op === "like" ? `%${text}%` : op === "like-r" ? `${text}%` : `%${text}`;
      return sql<SqlBool>`${column} like ${pattern} escape ${sql.lit(LIKE_ESCAPE)}`;
    }
    case "null":
    case "!null":
      if (value !== undefined && value !== null)
        throw new BrokerError("invalid_params", `${where}: op "${op}" takes no value`);
      return eb(column as never, op === "null" ? "is" : "is not", null as never);
  }
}
