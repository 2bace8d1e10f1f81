import type Database from "better-sqlite3";
import { sql } from "kysely";
import type { EngineSql } from "./engine-sql.js";

/** SQLite's comparisons are byte-wise and its LIKE ASCII-case-insensitive already. */
export const sqliteSql: EngineSql = {
  exactText: (text) => sql`${text} collate binary`,
  likeInsensitive: (text, pattern) => sql`${text} like ${pattern} escape '!'`,
  matches: (text, pattern) => sql`${text} regexp ${`^${pattern.body}$`}`,
  integerOf: (text) => sql`cast(${text} as integer)`,
  decimalOf: (text, scale) => sql`emcp_decimal(${text}, ${scale})`,
};

const numeral = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;

/**
 * SQLite has no REGEXP and rounds in binary floating point (2.675 → 2.67):
 * the connection gets both as functions, so it answers as the other engines do.
 */
export function addSqliteFunctions(database: Database.Database): void {
  const patterns = new Map<string, RegExp>();
  database.function("regexp", { deterministic: true }, (pattern, text) => {
    if (typeof pattern !== "string" || typeof text !== "string") return 0;
    let compiled = patterns.get(pattern);
    if (!compiled) patterns.set(pattern, (compiled = new RegExp(pattern, "u")));
    return compiled.test(text) ? 1 : 0;
  });
  database.function("emcp_decimal", { deterministic: true }, (text, scale) => {
    const parts = typeof text === "string" ? numeral.exec(text) : null;
    if (!parts || typeof scale !== "number") return null;
    const [, sign, whole, fraction = ""] = parts;
    const kept = BigInt(whole! + fraction.slice(0, scale).padEnd(scale, "0"));
    const rounded = (fraction[scale] ?? "0") >= "5" ? kept + 1n : kept;
    const digits = rounded.toString().padStart(scale + 1, "0");
    const point = digits.length - scale;
    return Number(`${sign}${digits.slice(0, point)}.${digits.slice(point)}0`);
  });
}
