import type { Kysely } from "kysely";
import type { EngineSql } from "./engine/engine-sql.js";
import { mysqlSql } from "./engine/mysql.js";
import { postgresSql } from "./engine/postgres.js";
import { sqliteSql } from "./engine/sqlite.js";
import type { Engine, OpenedDatabase } from "./open-database.js";
import type { EvoDatabase } from "./schema.js";
import { closureTable } from "./tree/closure-table.js";
import type { ContentTree } from "./tree/content-tree.js";
import { recursiveQuery } from "./tree/recursive-query.js";

/** An opened Evolution CMS database and what the tools need to know about it. */
export interface CmsDatabase {
  readonly db: Kysely<EvoDatabase>;
  readonly sql: EngineSql;
  readonly tree: ContentTree;
  /** Whether the TagSaver tables (`tags`, `site_content_tags`) are there, for `tags_data`. */
  readonly hasTags: boolean;
}

const ENGINE_SQL: Record<Engine, EngineSql> = {
  sqlite: sqliteSql,
  mysql: mysqlSql,
  postgres: postgresSql,
};

/**
 * Looks once at what this site's database has: a filled closure table
 * (Evolution 3) or only `parent` (1.x, or a closure table left empty),
 * and the TagSaver tables.
 */
export async function inspectCmsDatabase({ db, engine }: OpenedDatabase): Promise<CmsDatabase> {
  const closureRows = await answers(() =>
    db.selectFrom("site_content_closure").select("ancestor").limit(1).execute(),
  );
  const hasTags =
    (await answers(() => db.selectFrom("tags").select("id").limit(1).execute())) !== undefined &&
    (await answers(() =>
      db.selectFrom("site_content_tags").select("doc_id").limit(1).execute(),
    )) !== undefined;
  return {
    db,
    sql: ENGINE_SQL[engine],
    tree: closureRows && closureRows.length > 0 ? closureTable(db) : recursiveQuery(db),
    hasTags,
  };
}

/** A probe's rows, or undefined when its table is not there. */
async function answers<T>(probe: () => Promise<T>): Promise<T | undefined> {
  try {
    return await probe();
  } catch {
    return undefined;
  }
}
