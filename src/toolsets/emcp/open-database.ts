import Database from "better-sqlite3";
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type Dialect } from "kysely";
import { createPool } from "mysql2";
import pg from "pg";
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
      dialect: new MysqlDialect({ pool: createPool({ uri: spec, connectionLimit: 8 }) }),
    };
  }
  if (spec.startsWith("postgres://") || spec.startsWith("postgresql://")) {
    return {
      engine: "postgres",
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: spec, max: 8 }) }),
    };
  }
  throw new Error(
    `database "${spec}" is not one the toolset reads; write sqlite:PATH, mysql://… or postgres://…`,
  );
}
