import Database from "better-sqlite3";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type Dialect } from "kysely";
import { addSqliteFunctions } from "./engine/sqlite.js";
import { keepingStatements } from "./engine/sqlite-statements.js";
import { EVO_TABLES, type EvoDatabase } from "./schema.js";
import { TablePrefixPlugin } from "./table-prefix.js";

export type Engine = "sqlite" | "mysql" | "postgres";

export interface OpenedDatabase {
  readonly db: Kysely<EvoDatabase>;
  readonly engine: Engine;
}

/**
 * An Evolution CMS database by URL: `sqlite:PATH`, `mysql://…` (MariaDB or
 * MySQL) or `postgres://…`. With `readOnly`, SQLite is opened read-only.
 */
export function openDatabase(
  spec: string,
  options: { prefix?: string; readOnly?: boolean } = {},
): OpenedDatabase {
  const { engine, dialect } = dialectFor(spec, options.readOnly === true);
  const db = new Kysely<EvoDatabase>({
    dialect,
    plugins: [new TablePrefixPlugin(options.prefix ?? "evo_", EVO_TABLES)],
  });
  return { db, engine };
}

/**
 * How long a connection may take: mysql2's own default, given to pg too, which
 * otherwise waits for ever on a server that accepts and never answers.
 */
const CONNECT_MS = 10_000;

/**
 * The dialect for a database URL. The MySQL and PostgreSQL drivers (a tenth
 * of the program's modules) are loaded by the first connection that needs
 * one, not at every start.
 */
function dialectFor(spec: string, readOnly: boolean): { engine: Engine; dialect: Dialect } {
  if (spec.startsWith("sqlite:")) {
    const file = spec.slice("sqlite:".length);
    const database = new Database(file, { readonly: readOnly, fileMustExist: readOnly });
    addSqliteFunctions(database);
    return {
      engine: "sqlite",
      dialect: new SqliteDialect({ database: keepingStatements(database) }),
    };
  }
  if (spec.startsWith("mysql://")) {
    return {
      engine: "mysql",
      dialect: new MysqlDialect({
        pool: async () =>
          (await import("mysql2")).createPool({
            uri: spec,
            connectionLimit: 8,
            connectTimeout: CONNECT_MS,
          }),
      }),
    };
  }
  if (spec.startsWith("postgres://") || spec.startsWith("postgresql://")) {
    return {
      engine: "postgres",
      dialect: new PostgresDialect({
        pool: async () =>
          new (await import("pg")).default.Pool({
            connectionString: spec,
            max: 8,
            connectionTimeoutMillis: CONNECT_MS,
          }),
      }),
    };
  }
  throw new Error(
    `database "${spec}" is not one the toolset reads; write sqlite:PATH, mysql://… or postgres://…`,
  );
}
