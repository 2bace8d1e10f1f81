import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATORS } from "../../src/toolsets/emcp/tools/filter-operators.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { demoEngines } from "../helpers/emcp.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { connectHttp } from "../helpers/mcp-client.js";

/**
 * Inputs that would reach the database unchecked on one engine are refused
 * alike on every engine, as -32602 naming the argument, before any SQL.
 */
const demo = await demoEngines("h");
const { engines, prefix } = demo;
let broker: TestBroker;
const clients = new Map<string, Client>();

beforeAll(async () => {
  await demo.load(60);
  broker = await startBroker({
    tree: engines.map(([name, database]) => ({
      path: `/${name}`,
      source: { backend: "emcp", database, table_prefix: prefix, name },
    })),
  });
  for (const [name] of engines)
    clients.set(name, await connectHttp(broker.url, {}, { path: `/mcp/${name}` }));
}, 60_000);
afterAll(async () => {
  for (const c of clients.values()) await c.close();
  await broker?.close();
  await demo.drop();
});

/** The error of a call on every engine: the same on each, or the test fails. */
async function refusal(tool: string, args: Record<string, unknown>) {
  const errors = await Promise.all(
    [...clients.values()].map((c) =>
      c.callTool({ name: tool, arguments: args }).then(
        (result) => ({ code: 0, message: JSON.stringify(result).slice(0, 200) }),
        (err: { code: number; message: string }) => ({ code: err.code, message: err.message }),
      ),
    ),
  );
  for (const e of errors.slice(1)) expect(e).toEqual(errors[0]);
  return errors[0]!;
}

const tooMany = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("eMCP arguments no engine should see", () => {
  it.each([
    ["evo.content.search", { parent: 1e15, limit: 5 }, "parent"],
    ["evo.content.search", { template: 2 ** 31, limit: 5 }, "template"],
    ["evo.content.get", { id: 2 ** 63 }, "id"],
    ["evo.model.get", { model: "SiteTemplate", id: 2 ** 63 }, "id"],
    [
      "evo.content.search",
      { tags_data: { tv_id: 1e15, tags: ["a"] }, limit: 5 },
      "tags_data.tv_id",
    ],
    ["evo.content.children", { id: 1, limit: 5, offset: 1e15 }, "offset"],
  ])("%s with an integer no INT holds: %j", async (tool, args, argument) => {
    const e = await refusal(tool, args);
    expect(e.code).toBe(-32602);
    expect(e.message).toContain(`'${argument}'`);
  });

  it("a NUL character in any string is -32602 naming where it is", async () => {
    const search = await refusal("evo.content.search", {
      tv_filters: [{ tv: "price", op: "=", value: "1\u00002" }],
      limit: 5,
    });
    expect(search).toMatchObject({ code: -32602 });
    expect(search.message).toContain("argument 'tv_filters[0].value' contains a NUL character");
    const list = await refusal("evo.model.list", {
      model: "SiteSnippet",
      filters: { where: [{ field: "name", op: "like", value: "a\u0000" }] },
      limit: 5,
    });
    expect(list.message).toContain("argument 'filters.where[0].value' contains a NUL character");
  });

  it("LIKE on an integer field, or a number beyond INT on one, is -32602", async () => {
    const like = await refusal("evo.model.list", {
      model: "SiteTemplate",
      filters: { where: [{ field: "id", op: "like-r", value: "1" }] },
      limit: 5,
    });
    expect(like.code).toBe(-32602);
    expect(like.message).toContain('op "like-r" compares text, and this field is an integer');
    const big = await refusal("evo.model.list", {
      model: "SiteTemplate",
      filters: { where: [{ field: "category", op: ">", value: 1e15 }] },
      limit: 5,
    });
    expect(big.message).toContain("is not an integer from -2147483648 to 2147483647");
  });

  it("an in list or a where list too long for an engine is -32602 with the maximum", async () => {
    const inList = await refusal("evo.model.list", {
      model: "SiteTemplate",
      filters: { where: [{ field: "id", op: "in", value: tooMany(40_000) }] },
      limit: 5,
    });
    expect(inList.code).toBe(-32602);
    expect(inList.message).toContain("at most 1000 values");
    const where = await refusal("evo.model.list", {
      model: "SiteTemplate",
      filters: { where: tooMany(2000).map((i) => ({ field: "id", op: "!=", value: i })) },
      limit: 5,
    });
    expect(where.code).toBe(-32602);
    expect(where.message).toMatch(/filters\.where.* (100|fewer)/);
  });

  it("text compared with a number is compared as text, alike on every engine", async () => {
    const e = await refusal("evo.model.list", {
      model: "SiteTemplate",
      filters: { where: [{ field: "templatename", op: "=", value: 0 }] },
      limit: 5,
    });
    expect(e.code).toBe(0);
  });
});

describe("any arguments, every tool (property)", () => {
  const tools = [
    "evo.content.search",
    "evo.content.get",
    "evo.content.root_tree",
    "evo.content.descendants",
    "evo.content.ancestors",
    "evo.content.children",
    "evo.content.siblings",
    "evo.content.neighbors",
    "evo.content.prev_siblings",
    "evo.content.next_siblings",
    "evo.content.children_range",
    "evo.content.siblings_range",
    "evo.model.list",
    "evo.model.get",
  ];
  const keys = [
    "id",
    "limit",
    "offset",
    "depth",
    "parent",
    "with_tvs",
    "tv_filters",
    "tv_order",
    "model",
    "filters",
    "order_by",
    "order_dir",
    "from",
    "to",
    "tags_data",
    "published",
    "template",
  ];
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
    fc.string(),
    fc.constantFrom(1, 5, "SiteTemplate", "price", "=", "in", "like", ["price"], 2 ** 63),
  );
  const args = fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 5 });

  it("is a tool answer or -32602/-32601 naming the problem, the same on every engine; never -32603", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...tools), args, async (tool, a) => {
        const e = await refusal(tool, a);
        expect([0, -32602, -32601]).toContain(e.code);
        if (e.code !== 0) expect(e.message.length).toBeGreaterThan(20);
      }),
      { seed: 7, numRuns: fuzzRuns(150) },
    );
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
  }, 120_000);

  const operand = fc.oneof(
    fc.jsonValue({ maxDepth: 1 }),
    fc.integer({ min: -(2 ** 33), max: 2 ** 33 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 5 }),
  );
  const limit = fc.integer({ min: 1, max: 20 });
  const wellFormed = fc.oneof(
    fc.record({
      tool: fc.constant("evo.model.list"),
      args: fc.record({
        model: fc.constantFrom("SiteTemplate", "SiteTmplvar", "SiteTmplvarContentvalue", "User"),
        filters: fc.record({
          where: fc.array(
            fc.record({
              field: fc.constantFrom("id", "templatename", "name", "category", "value", "username"),
              op: fc.constantFrom(...OPERATORS),
              value: operand,
            }),
            { maxLength: 3 },
          ),
        }),
        order_by: fc.constantFrom("id", "name", "category"),
        limit,
      }),
    }),
    fc.record({
      tool: fc.constant("evo.content.search"),
      args: fc.record(
        {
          tv_filters: fc.array(
            fc.record(
              {
                tv: fc.constantFrom("price", "color", "stock", "rating"),
                op: fc.constantFrom(...OPERATORS),
                value: operand,
                cast: fc.constantFrom("UNSIGNED", "SIGNED", "DECIMAL(10,2)"),
                use_default: fc.boolean(),
              },
              { requiredKeys: ["tv", "op"] },
            ),
            { maxLength: 3 },
          ),
          tv_order: fc.array(
            fc.record(
              {
                tv: fc.constantFrom("price", "color", "stock"),
                dir: fc.constantFrom("asc", "desc"),
                cast: fc.constantFrom("UNSIGNED", "DECIMAL(8,1)"),
              },
              { requiredKeys: ["tv"] },
            ),
            { maxLength: 2 },
          ),
          parent: fc.integer({ min: 0, max: 2 ** 32 }),
          depth: fc.integer({ min: 1, max: 6 }),
          order_by: fc.constantFrom("id", "pagetitle", "menuindex"),
          limit,
        },
        { requiredKeys: ["limit"] },
      ),
    }),
  );

  it("well-formed filters with hostile values reach SQL only when every engine can answer", async () => {
    await fc.assert(
      fc.asyncProperty(wellFormed, async ({ tool, args: a }) => {
        const e = await refusal(tool, a);
        expect([0, -32602, -32601]).toContain(e.code);
      }),
      { seed: 11, numRuns: fuzzRuns(150) },
    );
  }, 120_000);
});
