import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemo } from "../../src/toolsets/emcp/demo/generate.js";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import { CmsFeed } from "../../src/toolsets/web-search/cms-feed.js";
import { TextIndex } from "../../src/toolsets/web-search/text-index.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { demoEngines, type DemoEngines } from "../helpers/emcp.js";

/** search_tool over the published documents of a real Evolution CMS database (SQLite). */
let demo: DemoEngines;
let broker: TestBroker;
let sample: { id: number; pagetitle: string; alias: string };

beforeAll(async () => {
  demo = await demoEngines("srch");
  const database = openDatabase(demo.sqlite, { prefix: demo.prefix });
  const { db } = database;
  await generateDemo(database, demo.prefix, 60);
  await db
    .updateTable("site_content")
    .set({ pagetitle: "Lighthouse keepers of Finisterre", editedon: 1_700_000_000 })
    .where("id", "=", 5)
    .execute();
  await db
    .updateTable("site_content")
    .set({ pagetitle: "Secret draft about lighthouses", published: 0 })
    .where("id", "=", 6)
    .execute();
  sample = await db
    .selectFrom("site_content")
    .select(["id", "pagetitle", "alias"])
    .where("id", "=", 5)
    .executeTakeFirstOrThrow();
  await db.destroy();
  broker = await startBroker({
    tree: [],
    toolsets: {
      search: {
        cms: {
          database: demo.sqlite,
          table_prefix: demo.prefix,
          site_url: "https://shop.example/",
        },
      },
    },
  });
});
afterAll(() => broker?.close());

async function search(query: string) {
  const { body } = await broker.post("/rpc", {
    jsonrpc: "2.0",
    method: "tools/call",
    params: {
      tool_name: "search_tool",
      function_name: "web_search",
      arguments: { query, max_results: 3 },
    },
    id: 1,
  });
  return body.result.data;
}

describe("search_tool over a CMS", () => {
  it("finds published documents by their words, with the site's URL", async () => {
    const data = await search("lighthouse finisterre");
    expect(data.provider).toBe("local");
    expect(data.results[0]).toMatchObject({
      title: sample.pagetitle,
      url: `https://shop.example/${sample.alias}`,
    });
  });

  it("leaves unpublished documents out", async () => {
    const titles = (await search("lighthouses draft")).results.map(
      (r: { title: string }) => r.title,
    );
    expect(titles).not.toContain("Secret draft about lighthouses");
  });

  it("reads documents edited since its last look", async () => {
    const index = new TextIndex();
    const feed = new CmsFeed(
      { database: demo.sqlite, tablePrefix: demo.prefix, refreshMs: 100 },
      index,
      pino({ level: "silent" }),
    );
    try {
      expect(
        (await index.search({ query: "zanzibar", limit: 5, signal: new AbortController().signal }))
          .length,
      ).toBe(0);
      const { db } = openDatabase(demo.sqlite, { prefix: demo.prefix });
      await db
        .updateTable("site_content")
        .set({ pagetitle: "Zanzibar ferry timetable", editedon: 2_000_000_000 })
        .where("id", "=", 7)
        .execute();
      await db.destroy();
      await expect
        .poll(
          async () =>
            (
              await index.search({
                query: "zanzibar",
                limit: 5,
                signal: new AbortController().signal,
              })
            ).map((h) => h.url),
          { timeout: 5000 },
        )
        .toEqual(["evo://document/7"]);
    } finally {
      await feed.close();
    }
  });
});

describe("a CMS database that is not there yet", () => {
  it("leaves the broker up and the search empty, and is read once it appears", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mcp-broker-late-cms-")), "site.sqlite");
    const index = new TextIndex();
    const feed = new CmsFeed(
      { database: `sqlite:${file}`, tablePrefix: demo.prefix, refreshMs: 100 },
      index,
      pino({ level: "silent" }),
    );
    try {
      const query = { query: "lighthouse", limit: 5, signal: new AbortController().signal };
      expect(await index.search(query)).toEqual([]);
      copyFileSync(demo.sqlite.slice("sqlite:".length), file);
      await expect
        .poll(async () => (await index.search(query)).length, { timeout: 5000 })
        .toBeGreaterThan(0);
    } finally {
      await feed.close();
    }
  });
});
