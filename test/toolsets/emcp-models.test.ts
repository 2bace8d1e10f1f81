import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { demoEngines } from "../helpers/emcp.js";
import { connectHttp } from "../helpers/mcp-client.js";

const demo = await demoEngines("m");
const { engines, sqlite, prefix } = demo;

let broker: TestBroker;
let values: { id: number; tmplvarid: number; contentid: number; value: string }[];
beforeAll(async () => {
  await demo.load(200);
  const { db } = openDatabase(sqlite, { prefix });
  values = await db.selectFrom("site_tmplvar_contentvalues").selectAll().execute();
  await db.destroy();
  broker = await startBroker({
    tree: engines.map(([name, database]) => ({
      path: `/${name}`,
      source: { backend: "emcp", database, table_prefix: prefix },
    })),
  });
}, 60_000);
afterAll(async () => {
  await broker?.close();
  await demo.drop();
});

const call = (engine: string, tool: string, args: unknown) =>
  broker.post("/meta_call", { path: `/${engine}/${tool}`, args });
const items = async (engine: string, args: unknown) =>
  (await call(engine, "evo.model.list", args)).body.output.structuredContent.items;

describe("evo.model.list and evo.model.get", () => {
  it("never return sensitive columns, though the database has them", async () => {
    for (const [engine] of engines) {
      const users = await items(engine, { model: "User", limit: 10 });
      expect(users).toEqual([
        { id: 1, username: "admin" },
        { id: 2, username: "editor" },
        { id: 3, username: "viewer" },
      ]);
      const attributes = await items(engine, { model: "UserAttribute", limit: 10 });
      expect(JSON.stringify(attributes)).not.toMatch(
        /session|password|token|cachepwd|verified_key/i,
      );
      const one = (await call(engine, "evo.model.get", { model: "User", id: 1 })).body.output
        .structuredContent;
      expect(one).toEqual({ item: { id: 1, username: "admin" }, meta: { toolsetVersion: "1.0" } });
    }
  });

  const where = (field: string, op: string, value?: unknown) => ({
    model: "SiteTmplvarContentvalue",
    filters: { where: [{ field, op, ...(value === undefined ? {} : { value }) }] },
    order_by: "id",
    limit: 100,
  });
  it.each([
    ["=", "value", "red", (v: string) => v === "red"],
    ["!=", "tmplvarid", 1, (_v: string, tv: number) => tv !== 1],
    [">", "tmplvarid", 3, (_v: string, tv: number) => tv > 3],
    [">=", "tmplvarid", 3, (_v: string, tv: number) => tv >= 3],
    ["<", "tmplvarid", 2, (_v: string, tv: number) => tv < 2],
    ["<=", "tmplvarid", 2, (_v: string, tv: number) => tv <= 2],
    ["in", "value", ["red", "blue"], (v: string) => v === "red" || v === "blue"],
    ["not_in", "tmplvarid", [1, 2, 3], (_v: string, tv: number) => ![1, 2, 3].includes(tv)],
    ["like", "value", "lu", (v: string) => v.includes("lu")],
    ["like-r", "value", "bl", (v: string) => v.startsWith("bl")],
    ["like-l", "value", "ed", (v: string) => v.endsWith("ed")],
    ["like", "value", "%", (v: string) => v.includes("%")],
    ["like", "value", "n/_", (v: string) => v.includes("n/_")],
    ["!null", "value", undefined, () => true],
    ["null", "value", undefined, () => false],
  ])("op %s filters exactly, on every engine", async (op, field, value, keep) => {
    const expected = values
      .filter((v) => keep(v.value, v.tmplvarid))
      .slice(0, 100)
      .map((v) => v.id);
    for (const [engine] of engines) {
      expect(
        (await items(engine, where(field, op, value))).map((r: { id: number }) => r.id),
      ).toEqual(expected);
    }
  });

  it("orders by an allowlisted field, then id, and answers alike on every engine", async () => {
    const args = { model: "SiteTmplvar", order_by: "name", order_dir: "desc", limit: 10 };
    const answers = await Promise.all(engines.map(([engine]) => items(engine, args)));
    expect(answers[0]!.map((t: { name: string }) => t.name)).toEqual([
      "tags",
      "stock",
      "release_date",
      "rating",
      "price",
      "color",
    ]);
    for (const a of answers.slice(1)) expect(a).toEqual(answers[0]);
  });

  it.each([
    [{ model: "Nope", limit: 5 }, 404, /unknown model "Nope"; the models are SiteTemplate, /],
    [
      { model: "User", limit: 5, filters: { where: [{ field: "password", op: "=", value: "x" }] } },
      400,
      /field "password" is not readable; the fields are id, username/,
    ],
    [
      { model: "User", limit: 5, order_by: "password" },
      400,
      /order_by: field "password" is not readable/,
    ],
    [
      { model: "User", limit: 5, filters: { where: [{ field: "id", op: "in", value: [] }] } },
      400,
      /non-empty array/,
    ],
    [
      { model: "User", limit: 5, filters: { where: [{ field: "id", op: "null", value: 1 }] } },
      400,
      /takes no value/,
    ],
    [
      { model: "User", limit: 5, filters: { where: [{ field: "id", op: "regexp", value: 1 }] } },
      400,
      /op/,
    ],
    [{ model: "User", limit: 5, filters: "id = 1" }, 400, /filters/],
  ])("refuses %j", async (args, status, message) => {
    const res = await call("sqlite", "evo.model.list", args);
    expect(res.status).toBe(status);
    expect(res.body.error.message).toMatch(message);
  });

  it("matches injection attempts literally, and leaves the tables as they were", async () => {
    const attempt = "x' OR '1'='1'; DROP TABLE users; --";
    for (const [engine] of engines) {
      expect(
        await items(engine, {
          model: "User",
          limit: 5,
          filters: { where: [{ field: "username", op: "=", value: attempt }] },
        }),
      ).toEqual([]);
      expect(
        await items(engine, {
          model: "User",
          limit: 5,
          filters: { where: [{ field: "username", op: "like", value: attempt }] },
        }),
      ).toEqual([]);
      expect(await items(engine, { model: "User", limit: 5 })).toHaveLength(3);
    }
  });
});

describe("the eMCP error profile on the toolset's own endpoint", () => {
  it("answers invalid params with -32602 and unknown tools and models with -32601, as protocol errors", async () => {
    const client = await connectHttp(broker.url, {}, { path: "/mcp/sqlite" });
    await expect(
      client.callTool({ name: "evo.content.children", arguments: { id: 1, limit: 500 } }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("limit"),
    });
    await expect(
      client.callTool({ name: "evo.model.get", arguments: { model: "Nope", id: 1 } }),
    ).rejects.toMatchObject({
      code: -32601,
      message: expect.stringContaining('unknown model "Nope"'),
    });
    await expect(
      client.callTool({ name: "evo.content.nope", arguments: {} }),
    ).rejects.toMatchObject({ code: -32601 });
    const ok = await client.callTool({
      name: "evo.model.get",
      arguments: { model: "User", id: 2 },
    });
    expect(ok.structuredContent).toEqual({
      item: { id: 2, username: "editor" },
      meta: { toolsetVersion: "1.0" },
    });
    await client.close();
  });

  it("while the aggregated /mcp keeps the MCP profile: a tool result with isError", async () => {
    const client = await connectHttp(broker.url);
    const result = await client.callTool({
      name: "meta_call",
      arguments: { path: "/sqlite/evo.content.children", args: { id: 1, limit: 500 } },
    });
    expect(result.isError).toBe(true);
    await client.close();
  });
});
