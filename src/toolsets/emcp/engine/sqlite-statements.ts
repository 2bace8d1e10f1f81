import type Database from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

/** Statements kept per connection; past this the least recently used is dropped. */
const KEPT = 200;

/**
 * The connection as Kysely's SQLite dialect takes it, keeping the statements
 * it prepared. The toolset's queries repeat (a search's SQL differs from the
 * last one's only in its bound values), and preparing a statement costs
 * SQLite a parse and a plan each time: as much as a small query itself, and
 * about a millisecond of a search. Kysely runs one query at a time on a
 * connection, so a kept statement is never asked for while it is running.
 */
export function keepingStatements(database: Database.Database): SqliteDatabase {
  const kept = new Map<string, Database.Statement>();
  return {
    close: () => database.close(),
    prepare(sql) {
      let statement = kept.get(sql);
      // Taken out and put back: a Map's order is then the order of last use.
      if (statement) kept.delete(sql);
      else statement = database.prepare(sql);
      kept.set(sql, statement);
      if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
      return statement;
    },
  };
}
