import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateDemo } from "../../src/toolsets/emcp/demo/generate.js";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import { EVO_TABLES } from "../../src/toolsets/emcp/schema.js";
import { engineAvailable, MARIADB_URL, POSTGRES_URL } from "./services.js";

export interface DemoEngines {
  /** [engine name, database URL]: SQLite always, MariaDB and PostgreSQL where they answer. */
  readonly engines: [string, string][];
  readonly sqlite: string;
  readonly prefix: string;
  /** Writes the demo database, `docs` documents, into every engine. */
  load(docs: number): Promise<void>;
  /** Drops the tables written into the servers (the SQLite file is a temporary one). */
  drop(): Promise<void>;
}

/** The engines an eMCP test runs on, with a table prefix of its own so runs never meet. */
export async function demoEngines(tag: string): Promise<DemoEngines> {
  const prefix = `${tag}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}_`;
  const sqlite = `sqlite:${join(mkdtempSync(join(tmpdir(), "mcp-broker-emcp-")), "evo.sqlite")}`;
  const engines: [string, string][] = [["sqlite", sqlite]];
  if (await engineAvailable("MariaDB", 3306)) engines.push(["mariadb", MARIADB_URL]);
  if (await engineAvailable("PostgreSQL", 5432)) engines.push(["postgres", POSTGRES_URL]);
  return {
    engines,
    sqlite,
    prefix,
    async load(docs) {
      for (const [, url] of engines) {
        const database = openDatabase(url, { prefix });
        await generateDemo(database, prefix, docs);
        await database.db.destroy();
      }
    },
    async drop() {
      for (const [, url] of engines.filter(([name]) => name !== "sqlite")) {
        const { db } = openDatabase(url, { prefix });
        for (const table of [...EVO_TABLES].reverse())
          await db.schema.dropTable(table).ifExists().execute();
        await db.destroy();
      }
    },
  };
}
