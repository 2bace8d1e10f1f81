import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemo } from "../../src/toolsets/emcp/demo/generate.js";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import { EVO_TABLES } from "../../src/toolsets/emcp/schema.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { postMcp } from "../helpers/mcp-client.js";
import { engineAvailable, MARIADB_URL, POSTGRES_URL } from "../helpers/services.js";

const DOCS = 300;
const prefix = `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}_`;
const sqlite = `sqlite:${join(mkdtempSync(join(tmpdir(), "mcp-broker-emcp-")), "evo.sqlite")}`;
const engines: [string, string][] = [["sqlite", sqlite]];
if (await engineAvailable("MariaDB", 3306)) engines.push(["mariadb", MARIADB_URL]);
if (await engineAvailable("PostgreSQL", 5432)) engines.push(["postgres", POSTGRES_URL]);

let broker: TestBroker;
beforeAll(async () => {
  for (const [, url] of engines) {
    const { db } = openDatabase(url, { prefix });
    await generateDemo(db, prefix, DOCS);
    await db.destroy();
  }
  broker = await startBroker({
    tree: engines.map(([name, database]) => ({
      path: `/${name}`,
      source: { backend: "emcp", database, table_prefix: prefix, max_offset: 50 },
    })),
  });
}, 60_000);
afterAll(async () => {
  await broker?.close();
  for (const [name, url] of engines) {
    if (name === "sqlite") continue;
    const { db } = openDatabase(url, { prefix });
    for (const table of [...EVO_TABLES].reverse())
      await db.schema.dropTable(table).ifExists().execute();
    await db.destroy();
  }
});

const call = async (engine: string, tool: string, args: unknown) =>
  broker.post("/meta_call", { path: `/${engine}/${tool}`, args });
const structured = (res: { body: any }) => res.body.output.structuredContent;

describe("evo.content.get and evo.content.children", () => {
  it("answer the same on every engine", async () => {
    const questions: [string, unknown][] = [
      ["evo.content.get", { id: 25, with_tvs: ["price", "color:d", "rating"] }],
      ["evo.content.get", { id: 9999 }],
      ["evo.content.children", { id: 1, limit: 5, with_tvs: ["stock"] }],
      ["evo.content.children", { id: 2, limit: 3, offset: 2, with_content: true }],
    ];
    for (const [tool, args] of questions) {
      const answers = await Promise.all(engines.map(([engine]) => call(engine, tool, args)));
      for (const a of answers) expect(a.status).toBe(200);
      for (const a of answers.slice(1)) expect(structured(a)).toEqual(structured(answers[0]!));
    }
  });

  it.each(engines.map(([e]) => e))(
    "get returns a deleted document too, flags as booleans (%s)",
    async (engine) => {
      const { db } = openDatabase(engines.find(([e]) => e === engine)![1], { prefix });
      const deleted = await db
        .selectFrom("site_content")
        .select("id")
        .where("deleted", "=", 1)
        .executeTakeFirstOrThrow();
      await db.destroy();
      const item = structured(await call(engine, "evo.content.get", { id: deleted.id })).item;
      expect(item).toMatchObject({ id: deleted.id, deleted: true });
      expect(typeof item.published).toBe("boolean");
      expect(structured(await call(engine, "evo.content.get", { id: 9999 }))).toEqual({
        item: null,
        meta: { toolsetVersion: "1.0" },
      });
    },
  );

  it.each(engines.map(([e]) => e))(
    "children leave deleted ones out, run in menu order, and page without overlap (%s)",
    async (engine) => {
      const { db } = openDatabase(engines.find(([e]) => e === engine)![1], { prefix });
      const parent = (
        await db
          .selectFrom("site_content")
          .select("parent")
          .where("deleted", "=", 1)
          .where("parent", "!=", 0)
          .executeTakeFirstOrThrow()
      ).parent;
      const expected = await db
        .selectFrom("site_content")
        .select("id")
        .where("parent", "=", parent)
        .where("deleted", "=", 0)
        .orderBy("menuindex")
        .orderBy("id")
        .execute();
      await db.destroy();
      const seen: number[] = [];
      for (let offset = 0; ; offset += 2) {
        const answer = structured(
          await call(engine, "evo.content.children", { id: parent, limit: 2, offset }),
        );
        seen.push(...answer.items.map((i: { id: number }) => i.id));
        expect(answer.meta).toMatchObject({
          limit: 2,
          offset,
          count: answer.items.length,
          toolsetVersion: "1.0",
        });
        if (!answer.meta.has_more) break;
      }
      expect(seen).toEqual(expected.map((r) => r.id));
    },
  );

  it("with_tvs falls back to the default only with :d", async () => {
    const [engine] = engines[0]!;
    const { db } = openDatabase(sqlite, { prefix });
    const product = await db
      .selectFrom("site_content")
      .select("id")
      .where("template", "=", 3)
      .where(
        "id",
        "not in",
        db.selectFrom("site_tmplvar_contentvalues").select("contentid").where("tmplvarid", "=", 5),
      )
      .executeTakeFirstOrThrow();
    await db.destroy();
    const tvs = (args: string[]) =>
      call(engine, "evo.content.get", { id: product.id, with_tvs: args }).then(
        (r) => structured(r).item.tvs,
      );
    expect(await tvs(["color"])).toEqual({ color: null });
    expect(await tvs(["color:d"])).toEqual({ color: "black" });
  });

  it.each([
    [{ id: 1 }, /limit/],
    [{ id: 1, limit: 0 }, /limit/],
    [{ id: 1, limit: 101 }, /limit/],
    [{ id: 1, limit: 5, offset: 51 }, /offset/],
    [{ id: "1", limit: 5 }, /'id' must be integer/],
    [{ id: 1, limit: 5, with_tvs: ["nope"] }, /with_tvs names TVs that do not exist: nope/],
    [{ id: 1, limit: 5, with_tvs: ["x'; drop table evo_site_content; --"] }, /with_tvs/],
    [{ id: 1, limit: 5, extra: true }, /unknown argument 'extra'/],
  ])("refuses %j, saying what is wrong", async (args, message) => {
    const res = await call("sqlite", "evo.content.children", args);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
  });

  it("answers initialize with the contract's platform metadata (raw JSON)", async () => {
    const res = await postMcp(`${broker.url}/mcp/sqlite`, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      },
    });
    const text = await res.text();
    const message = JSON.parse(/^data: (\{.*\})$/m.exec(text)![1]!);
    expect(message.result.serverInfo).toMatchObject({
      platform: "eMCP",
      platformVersion: expect.any(String),
    });
    expect(message.result.capabilities.evo).toEqual({ toolsetVersion: "1.0" });
  });
});
