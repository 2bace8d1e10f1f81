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
 * How SQLite runs a search: from the filter that compares text as it is, so
 * that the numeral under a cast (a JavaScript function per row) is checked
 * only for the documents that filter left; each TV's values joined once.
 */
let demo: DemoEngines;
beforeAll(async () => {
  demo = await demoEngines("plan");
  demo.engines.splice(1); // SQLite only: the plan is its own
  await demo.load(2000);
});
afterAll(() => demo?.drop());

/** The SQL of a search's document query, and SQLite's plan for it. */
async function planOf(args: Record<string, unknown>) {
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
  try {
    const cms = await inspectCmsDatabase({ db, engine: "sqlite" });
    await contentSearch(DEFAULT_EMCP_LIMITS).run(cms, { limit: 20, ...args });
    const plan = database
      .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .all(...(query.parameters as unknown[])) as { detail: string }[];
    return { sql: query.sql, plan: plan.map((step) => step.detail) };
  } finally {
    await db.destroy();
  }
}

describe("evo.content.search on SQLite", () => {
  it("starts from the plain filter, whatever the order the filters were given in", async () => {
    const { plan } = await planOf({
      tv_filters: [
        { tv: "price", op: ">=", value: 500, cast: "UNSIGNED" },
        { tv: "color", op: "=", value: "red" },
      ],
      tv_order: [{ tv: "price", dir: "desc", cast: "DECIMAL(10,2)" }],
    });
    // tv_filter_1 is the colour, tv_filter_0 the price: the colour's loop is the outer one,
    // so a price is read (and its numeral checked) only for a red document. With statistics,
    // SQLite may start from the documents themselves on a small database; that order holds.
    const loop = (alias: string) => plan.findIndex((step) => step.includes(` ${alias} `));
    expect(loop("tv_filter_1")).toBeGreaterThanOrEqual(0);
    expect(loop("tv_filter_1")).toBeLessThan(loop("tv_filter_0"));
  });

  it("joins a TV's values once for a range on it, and the order on it reuses that join", async () => {
    const { sql, plan } = await planOf({
      tv_filters: [
        { tv: "price", op: ">=", value: 200, cast: "UNSIGNED" },
        { tv: "color", op: "in", value: ["red", "blue"] },
        { tv: "price", op: "<=", value: 800, cast: "UNSIGNED" },
      ],
      tv_order: [{ tv: "price", dir: "asc", cast: "DECIMAL(10,2)" }],
    });
    expect(sql.match(/site_tmplvar_contentvalues" as/g)).toHaveLength(2);
    expect(plan.filter((step) => step.includes("tmplvar_contentvalues"))).toHaveLength(2);
  });
});
