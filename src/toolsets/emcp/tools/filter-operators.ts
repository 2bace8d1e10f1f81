import { type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { BrokerError } from "../../../contract/errors.js";
import type { EngineSql } from "../engine/engine-sql.js";

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

/** What is compared: an expression, and whether it is text to compare byte by byte. */
export interface Compared {
  readonly expr: Expression<unknown>;
  /**
   * Text (TV values): `=`, `<`, `in`… compare bytes on every engine, so a
   * MariaDB collation that ignores case answers as SQLite and PostgreSQL do.
   * Otherwise the engine compares the column as its type says.
   */
  readonly text: boolean;
}

/**
 * One structured comparison of a column (named from a fixed list) with a
 * bound value. `like` is contains, `like-r` starts with, `like-l` ends with,
 * with `%` and `_` in the value matched literally and ASCII letters in either
 * case; `in`/`not_in` take a non-empty array; `null`/`!null` take no value.
 */
export function comparison<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  engine: EngineSql,
  compared: Compared,
  op: Operator,
  value: unknown,
  where: string,
): Expression<SqlBool> {
  const column = compared.text
    ? engine.exactText(compared.expr as Expression<string | null>)
    : compared.expr;
  const scalar = () => {
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
      throw new BrokerError(
        "invalid_params",
        `${where}: op "${op}" needs a string, number or boolean value`,
      );
    }
    const plain = typeof value === "boolean" ? Number(value) : value;
    // Text is compared with text: MariaDB would compare a string with a number as numbers.
    return compared.text ? String(plain) : plain;
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
      const list = compared.text ? value.map(String) : value;
      return eb(column as never, op === "in" ? "in" : "not in", list as never);
    }
    case "like":
    case "like-l":
    case "like-r": {
      const text = escapeLike(String(scalar()));
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
