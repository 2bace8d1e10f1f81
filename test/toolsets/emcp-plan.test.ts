import Database from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectCmsDatabase } from "../../src/toolsets/emcp/cms-database.js";
import { addSqliteFunctions } from "../../src/toolsets/emcp/engine/sqlite.js";
import { EVO_TABLES, type EvoDatabase } from "../../src/toolsets/emcp/schema.js";
import { TablePrefixPlugin } from "../../src/toolsets/emcp/table-prefix.js";
import { DEFAULT_EMCP_LIMITS } from "../../src/toolsets/emcp/tools/arguments.js";
import { contentSearch } from "../../src/toolsets/emcp/tools/content-search.js";
import { demoEngines, type DemoEngines } from "../helpers/emcp.js";

/**
 * Where SQLite starts a search: from the filter that compares text as it
 * is, so that the numeral under a cast (a JavaScript function per row) is
 * checked only for the documents that filter left, not for every document.
 */
let demo: DemoEngines;
beforeAll(async () => {
  demo = await demoEngines("plan");
  demo.engines.splice(1); // SQLite only: the plan is its own
  await demo.load(2000);
});
afterAll(() => demo?.drop());

describe("evo.content.search on SQLite", () => {
  it("starts from the plain filter, whatever the order the filters were given in", async () => {
    const database = new Database(demo.sqlite.slice("sqlite:".length), { readonly: true });
    addSqliteFunctions(database);
    let query = { sql: "", parameters: [] as readonly unknown[] };
    const db = new Kysely<EvoDatabase>({
      dialect: new SqliteDialect({ database }),
      plugins: [new TablePrefixPlugin(demo.prefix, EVO_TABLES)],
      log: (event) => {
        if (event.level === "query" && event.query.sql.includes("tv_filter_")) query = event.query;
      },
    });
    const cms = await inspectCmsDatabase({ db, engine: "sqlite" });
    await contentSearch(DEFAULT_EMCP_LIMITS).run(cms, {
      tv_filters: [
        { tv: "price", op: ">=", value: 500, cast: "UNSIGNED" },
        { tv: "color", op: "=", value: "red" },
      ],
      tv_order: [{ tv: "price", dir: "desc", cast: "DECIMAL(10,2)" }],
      limit: 20,
    });
    const plan = database
      .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .all(...(query.parameters as unknown[])) as { detail: string }[];
    // tv_filter_1 is the colour: the outermost loop reads its rows.
    expect(plan[0]!.detail).toMatch(/^SCAN tv_filter_1|^SEARCH tv_filter_1/);
    await db.destroy();
  });
});
