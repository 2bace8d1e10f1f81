import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_TEMPLATES, DEMO_TVS } from "../../src/toolsets/emcp/demo/generate.js";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { demoEngines } from "../helpers/emcp.js";
import { connectHttp } from "../helpers/mcp-client.js";

const DOCS = 400;
/** The demo as Evolution 3 has it, and a copy without closure and TagSaver tables (Evolution 1.x). */
const evo3 = await demoEngines("s");
const evo1 = await demoEngines("o");
const { engines } = evo3;

/** TV values that are not plain numbers, or are on the edge of one, put on news documents as `rating`. */
const ODD_RATINGS = [
  "12\n",
  " 12",
  "1e3",
  "-5",
  "2.675",
  "0x1A",
  "",
  "99999999999999999999",
  "7.5",
];

interface Doc {
  id: number;
  parent: number;
  template: number;
  deleted: number;
  published: number;
}
let docs: Doc[];
/** `tvValues.get(tvId).get(docId)`, from the SQLite copy. */
const tvValues = new Map<number, Map<number, string>>();
let oddDocs: number[];

let broker: TestBroker;
beforeAll(async () => {
  await evo3.load(DOCS);
  await evo1.load(DOCS);
  const copies = [evo3, evo1].flatMap((demo) =>
    demo.engines.map(([, url]) => [url, demo.prefix] as const),
  );
  for (const [url, prefix] of copies) {
    const { db } = openDatabase(url, { prefix });
    const news = await db
      .selectFrom("site_content")
      .select("id")
      .where("template", "=", DEMO_TEMPLATES.news)
      .where("deleted", "=", 0)
      .orderBy("id")
      .limit(ODD_RATINGS.length)
      .execute();
    oddDocs = news.map((n) => n.id);
    const { max } = await db
      .selectFrom("site_tmplvar_contentvalues")
      .select((eb) => eb.fn.max("id").as("max"))
      .executeTakeFirstOrThrow();
    await db
      .insertInto("site_tmplvar_contentvalues")
      .values(
        ODD_RATINGS.map((value, i) => ({
          id: Number(max) + 1 + i,
          tmplvarid: DEMO_TVS.rating,
          contentid: news[i]!.id,
          value,
        })),
      )
      .execute();
    await db.destroy();
  }
  for (const [, url] of evo1.engines) {
    const { db } = openDatabase(url, { prefix: evo1.prefix });
    for (const table of ["site_content_closure", "site_content_tags", "tags"] as const)
      await db.schema.dropTable(table).execute();
    await db.destroy();
  }
  const { db } = openDatabase(evo3.sqlite, { prefix: evo3.prefix });
  docs = await db
    .selectFrom("site_content")
    .select(["id", "parent", "template", "deleted", "published"])
    .orderBy("id")
    .execute();
  for (const v of await db.selectFrom("site_tmplvar_contentvalues").selectAll().execute()) {
    if (!tvValues.has(v.tmplvarid)) tvValues.set(v.tmplvarid, new Map());
    tvValues.get(v.tmplvarid)!.set(v.contentid, v.value);
  }
  await db.destroy();
  broker = await startBroker({
    tree: [
      ...engines.map(([name, database]) => ({
        path: `/${name}`,
        source: { backend: "emcp", database, table_prefix: evo3.prefix },
      })),
      ...evo1.engines.map(([name, database]) => ({
        path: `/${name}_evo1`,
        source: { backend: "emcp", database, table_prefix: evo1.prefix },
      })),
    ],
  });
}, 120_000);
afterAll(async () => {
  await broker?.close();
  await evo3.drop();
  await evo1.drop();
});

const search = (engine: string, args: unknown) =>
  broker.post("/meta_call", { path: `/${engine}/evo.content.search`, args });
const ids = async (engine: string, args: Record<string, unknown>) => {
  const res = await search(engine, { limit: 100, ...args });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.output.structuredContent.items.map((i: { id: number }) => i.id) as number[];
};
const live = () => docs.filter((d) => d.deleted === 0);
/** The live documents whose `tv` value passes `test`, in id order: what a filter must select. */
const withValue = (tv: number, test: (value: string | undefined, doc: Doc) => boolean) =>
  live()
    .filter((d) => test(tvValues.get(tv)?.get(d.id), d))
    .map((d) => d.id);

describe("evo.content.search", () => {
  const questions: Record<string, unknown>[] = [
    {},
    { published: true, template: DEMO_TEMPLATES.product },
    { hidemenu: true, order_by: "pagetitle", order_dir: "desc" },
    { deleted: true },
    { parent: 1, depth: 3, order_by: "menuindex" },
    { parent: 0 },
    { depth: 2, order_by_date: "desc" },
    { order_by: "pub_date", order_dir: "asc", offset: 10 },
    { order_by: "createdon", order_dir: "desc", with_tvs: ["price", "color:d"] },
    ...["=", "!=", ">", ">=", "<", "<="].flatMap((op) => [
      { tv_filters: [{ tv: "price", op, value: "100", cast: "UNSIGNED" }] },
      { tv_filters: [{ tv: "stock", op, value: 250, cast: "SIGNED" }] },
      { tv_filters: [{ tv: "price", op, value: "12.5", cast: "DECIMAL(10,2)" }] },
      { tv_filters: [{ tv: "rating", op, value: 3, cast: "SIGNED", use_default: true }] },
      { tv_filters: [{ tv: "color", op, value: "green" }] },
      { tv_filters: [{ tv: "release_date", op, value: "2024-06-01" }] },
    ]),
    { tv_filters: [{ tv: "color", op: "in", value: ["red", "blue"] }] },
    { tv_filters: [{ tv: "color", op: "not_in", value: ["red", "blue"], use_default: true }] },
    { tv_filters: [{ tv: "color", op: "like", value: "LU" }] },
    { tv_filters: [{ tv: "color", op: "like-r", value: "b" }] },
    { tv_filters: [{ tv: "color", op: "like-l", value: "E" }] },
    { tv_filters: [{ tv: "rating", op: "null" }] },
    { tv_filters: [{ tv: "rating", op: "!null", use_default: true }] },
    { tv_filters: [{ tv: "rating", op: ">", value: 0, cast: "DECIMAL(3,2)" }] },
    {
      tv_filters: [
        { tv: "price", op: ">=", value: 50, cast: "DECIMAL(8,2)" },
        { tv: "stock", op: ">", value: 10, cast: "UNSIGNED" },
      ],
      tv_order: [{ tv: "price", dir: "desc", cast: "DECIMAL(8,2)" }],
    },
    {
      tv_order: [
        { tv: "color", dir: "desc" },
        { tv: "rating", cast: "SIGNED", use_default: true },
      ],
    },
    { tv_order: [{ tv: "stock", cast: "UNSIGNED" }], order_by_date: "asc" },
    { tags_data: { tv_id: DEMO_TVS.tags, tags: ["alpha", "cobalt"] }, order_by: "menuindex" },
  ];

  it(`answers ${questions.length} searches the same on every engine, with and without the closure table`, async () => {
    const answers = new Map<string, unknown[]>();
    for (const [engine] of engines) answers.set(engine, []);
    for (const question of questions) {
      for (const [engine] of engines) {
        const res = await search(engine, { limit: 30, ...question });
        expect(
          res.status,
          `${engine} ${JSON.stringify(question)}: ${JSON.stringify(res.body)}`,
        ).toBe(200);
        answers.get(engine)!.push(res.body.output.structuredContent);
      }
    }
    const [first, ...others] = [...answers.values()];
    for (const other of others) expect(other).toEqual(first);
    for (const [engine] of evo1.engines) {
      for (const question of questions.filter((q) => !q.tags_data)) {
        const [res, base] = await Promise.all([
          search(`${engine}_evo1`, { limit: 30, ...question }),
          search("sqlite", { limit: 30, ...question }),
        ]);
        expect(res.body.output.structuredContent, JSON.stringify(question)).toEqual(
          base.body.output.structuredContent,
        );
      }
    }
  });

  it("selects exactly the documents a cast comparison means", async () => {
    const number = (v: string | undefined) =>
      v !== undefined && /^[0-9]{1,18}(\.[0-9]+)?$/.test(v) ? Math.trunc(Number(v)) : undefined;
    const price = withValue(DEMO_TVS.price, (v) => (number(v) ?? -1) > 100);
    expect(price.length).toBeGreaterThan(5);
    const stock = withValue(DEMO_TVS.stock, (v) => number(v) !== undefined && number(v) !== 7);
    expect(withValue(DEMO_TVS.stock, (v) => v === "n/a").length).toBeGreaterThan(0);
    for (const [engine] of engines) {
      expect(
        await ids(engine, { tv_filters: [{ tv: "price", op: ">", value: 100, cast: "UNSIGNED" }] }),
      ).toEqual(price.slice(0, 100));
      // "n/a" is no number: not even != selects it.
      expect(
        await ids(engine, { tv_filters: [{ tv: "stock", op: "!=", value: "7", cast: "SIGNED" }] }),
      ).toEqual(stock.slice(0, 100));
    }
  });

  it("a price range, a colour list and a price order select and order what they mean", async () => {
    const cents = (v: string | undefined) =>
      v !== undefined && /^[0-9]{1,18}(\.[0-9]+)?$/.test(v)
        ? Math.round(Number(v) * 100)
        : undefined;
    const price = (id: number) => cents(tvValues.get(DEMO_TVS.price)!.get(id))!;
    const shop = live()
      .filter((d) => {
        const p = cents(tvValues.get(DEMO_TVS.price)?.get(d.id));
        const color = tvValues.get(DEMO_TVS.color)?.get(d.id);
        return p !== undefined && p >= 20_000 && p < 80_100 && ["red", "blue"].includes(color!);
      })
      .map((d) => d.id)
      .sort((a, b) => price(a) - price(b) || a - b);
    expect(shop.length).toBeGreaterThan(3);
    for (const [engine] of engines) {
      expect(
        await ids(engine, {
          tv_filters: [
            { tv: "price", op: ">=", value: 200, cast: "UNSIGNED" },
            { tv: "color", op: "in", value: ["red", "blue"] },
            { tv: "price", op: "<=", value: 800, cast: "UNSIGNED" },
          ],
          tv_order: [{ tv: "price", dir: "asc", cast: "DECIMAL(10,2)" }],
        }),
      ).toEqual(shop.slice(0, 100));
    }
  });

  it("reads only plain numerals as numbers, the same way on every engine", async () => {
    const rating = (op: string, value: number, cast: string) => ({
      tv_filters: [{ tv: "rating", op, value, cast }],
      template: DEMO_TEMPLATES.news,
    });
    const odd = (...values: string[]) => values.map((v) => oddDocs[ODD_RATINGS.indexOf(v)]!);
    for (const [engine] of engines) {
      // "12\n", " 12", "1e3", "0x1A", "" and a 20-digit number hold no number.
      expect(await ids(engine, rating(">", -1000, "SIGNED"))).toEqual(odd("-5", "2.675", "7.5"));
      expect(await ids(engine, rating(">=", 0, "UNSIGNED"))).toEqual(odd("2.675", "7.5"));
      // Integer casts truncate; DECIMAL rounds half away from zero, exactly.
      expect(await ids(engine, rating("=", 7, "SIGNED"))).toEqual(odd("7.5"));
      expect(await ids(engine, rating("=", 2.68, "DECIMAL(5,2)"))).toEqual(odd("2.675"));
      expect(await ids(engine, rating("=", 2.7, "DECIMAL(5,1)"))).toEqual(odd("2.675"));
      // DECIMAL(2,1) holds at most one integer digit.
      expect(await ids(engine, rating("<", 100, "DECIMAL(2,1)"))).toEqual(
        odd("-5", "2.675", "7.5"),
      );
    }
  });

  it("compares text exactly and like without regard to ASCII case, %, _ literal", async () => {
    const colors = (test: (v: string) => boolean) =>
      withValue(DEMO_TVS.color, (v) => v !== undefined && test(v));
    for (const [engine] of engines) {
      expect(await ids(engine, { tv_filters: [{ tv: "color", op: "=", value: "Red" }] })).toEqual(
        [],
      );
      expect(await ids(engine, { tv_filters: [{ tv: "color", op: "=", value: "red" }] })).toEqual(
        colors((v) => v === "red").slice(0, 100),
      );
      expect(await ids(engine, { tv_filters: [{ tv: "color", op: "like", value: "RE" }] })).toEqual(
        colors((v) => v.includes("re")).slice(0, 100),
      );
      expect(
        await ids(engine, { tv_filters: [{ tv: "color", op: "like", value: "r%d" }] }),
      ).toEqual([]);
      expect(
        await ids(engine, { tv_filters: [{ tv: "color", op: "like-r", value: "_" }] }),
      ).toEqual([]);
    }
  });

  it("tags_data matches tag names exactly, through the TagSaver tables", async () => {
    for (const [engine] of engines) {
      const tagged = await ids(engine, { tags_data: { tv_id: DEMO_TVS.tags, tags: ["alpha"] } });
      expect(tagged.length).toBeGreaterThan(0);
      expect(await ids(engine, { tags_data: { tv_id: DEMO_TVS.tags, tags: ["ALPHA"] } })).toEqual(
        [],
      );
      expect(await ids(engine, { tags_data: { tv_id: DEMO_TVS.price, tags: ["alpha"] } })).toEqual(
        [],
      );
    }
  });

  it("use_default compares the TV's default where the template carries the TV", async () => {
    const black = withValue(
      DEMO_TVS.color,
      (v, d) => v === "black" || (v === undefined && d.template === DEMO_TEMPLATES.product),
    );
    for (const [engine] of engines) {
      expect(
        await ids(engine, {
          tv_filters: [{ tv: "color", op: "=", value: "black", use_default: true }],
        }),
      ).toEqual(black.slice(0, 100));
    }
  });

  it("tv_order puts documents without a value last, and pages never overlap", async () => {
    for (const [engine] of engines) {
      const order = { tv_order: [{ tv: "price", dir: "asc", cast: "DECIMAL(10,2)" }] };
      const whole = await ids(engine, { ...order, limit: 100 });
      const pages: number[] = [];
      for (let offset = 0; offset < 100; offset += 7)
        pages.push(...(await ids(engine, { ...order, limit: 7, offset })));
      expect(pages.slice(0, 100)).toEqual(whole);
      const prices = whole.map((id) => tvValues.get(DEMO_TVS.price)!.get(id));
      const numbers = prices.filter((p) => p !== undefined).map(Number);
      expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      expect(prices.slice(numbers.length).every((p) => p === undefined)).toBe(true);
    }
  });

  it("parent and depth select the documents below, as the tree says", async () => {
    const below = (parent: number, depth: number): number[] => {
      if (depth === 0) return [];
      const children = docs.filter((d) => d.parent === parent);
      return [...children.map((c) => c.id), ...children.flatMap((c) => below(c.id, depth - 1))];
    };
    for (const [engine] of [...engines, ...evo1.engines.map(([e]) => [`${e}_evo1`])]) {
      for (const [parent, depth] of [
        [1, 1],
        [1, 3],
        [0, 2],
      ] as const) {
        const expected = below(parent, depth)
          .filter((id) => docs.find((d) => d.id === id)!.deleted === 0)
          .sort((a, b) => a - b);
        expect(await ids(engine!, { parent, depth, limit: 100 })).toEqual(expected.slice(0, 100));
      }
    }
  });

  it.each([
    [
      { tv_filters: [{ tv: "weight", op: "=", value: 1 }] },
      /no TV is named "weight" \(tv_filters\[0\]\.tv\)/,
    ],
    [{ tv_order: [{ tv: "nope" }] }, /no TV is named "nope" \(tv_order\[0\]\.tv\)/],
    [
      { tv_filters: [{ tv: "price", op: "like", value: "1", cast: "SIGNED" }] },
      /cast applies to =, !=/,
    ],
    [{ tv_filters: [{ tv: "price", op: ">", value: "1", cast: "DECIMAL(70,2)" }] }, /1 ≤ p ≤ 65/],
    [{ tv_filters: [{ tv: "price", op: ">", value: "1", cast: "DECIMAL(4,5)" }] }, /s ≤ p/],
    [{ tv_filters: [{ tv: "price", op: ">", value: "1", cast: "FLOAT" }] }, /cast/],
    [
      { tv_filters: [{ tv: "price", op: ">", value: "cheap", cast: "UNSIGNED" }] },
      /"cheap" is not a number/,
    ],
    [{ tv_filters: [{ tv: "color", op: "in", value: [] }] }, /non-empty array/],
    [{ tv_filters: [{ tv: "color", op: "null", value: "x" }] }, /takes no value/],
    [{ tv_filters: [{ tv: "color", op: "~", value: "x" }] }, /op/],
    [{ tv_filters: [{ tv: "color", op: "=", value: { $ne: 1 } }] }, /value/],
    [{ order_by: "password" }, /order_by/],
    [{ order_dir: "sideways" }, /order_dir/],
    [{ depth: 0 }, /depth/],
    [{ tags_data: { tv_id: 6, tags: [] } }, /tags/],
    [{ parent: "1 or 1=1" }, /parent/],
  ])("refuses %j, saying what is wrong", async (args, message) => {
    const res = await search("sqlite", { limit: 5, ...args });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
  });

  it.each([
    ["parent", -1],
    ["published", "yes"],
    ["deleted", 1],
    ["template", "3"],
    ["hidemenu", "no"],
    ["depth", 99],
    ["with_tvs", "price"],
    ["with_content", "yes"],
    ["tv_filters", { tv: "price" }],
    ["tv_order", "price"],
    ["tags_data", ["alpha"]],
    ["order_by", 1],
    ["order_dir", true],
    ["order_by_date", "newest"],
    ["limit", "20"],
    ["offset", -1],
  ])("refuses %s of the wrong type or range, naming it", async (name, value) => {
    const res = await search("sqlite", { limit: 5, [name]: value });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(name);
  });

  it("takes injection attempts as plain values", async () => {
    for (const [engine] of engines) {
      for (const value of [
        "x' OR '1'='1",
        "red'); DROP TABLE evo_site_content; --",
        "\\",
        "%'--",
      ]) {
        expect(await ids(engine, { tv_filters: [{ tv: "color", op: "=", value }] })).toEqual([]);
        expect(await ids(engine, { tv_filters: [{ tv: "color", op: "like", value }] })).toEqual([]);
      }
      const { db } = openDatabase(engines.find(([e]) => e === engine)![1], {
        prefix: evo3.prefix,
      });
      const { count } = await db
        .selectFrom("site_content")
        .select((eb) => eb.fn.countAll().as("count"))
        .executeTakeFirstOrThrow();
      await db.destroy();
      expect(Number(count)).toBe(DOCS);
    }
  });

  it("answers tags_data without TagSaver tables with -32602 over /mcp/<name>", async () => {
    const [engine] = evo1.engines[0]!;
    const client = await connectHttp(broker.url, {}, { path: `/mcp/${engine}_evo1` });
    await expect(
      client.callTool({
        name: "evo.content.search",
        arguments: { limit: 5, tags_data: { tv_id: 6, tags: ["alpha"] } },
      }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("TagSaver tables") });
    await client.close();
  });
});

describe("the tree tools without a closure table", () => {
  it("walk the tree with a recursive query and answer as with the closure table", async () => {
    const questions: [string, Record<string, unknown>][] = [
      ["evo.content.descendants", { id: 1, depth: 4, limit: 50 }],
      ["evo.content.descendants", { id: 2, limit: 50 }],
      ["evo.content.ancestors", { id: 390, limit: 10 }],
      ["evo.content.ancestors", { id: 390, depth: 2, limit: 10 }],
      ["evo.content.root_tree", { depth: 3, limit: 50, offset: 5 }],
      ["evo.content.descendants", { id: 99999, limit: 5 }],
    ];
    for (const [engine] of evo1.engines) {
      for (const [tool, args] of questions) {
        const call = (path: string) =>
          broker.post("/meta_call", { path: `/${path}/${tool}`, args });
        const [res, base] = await Promise.all([call(`${engine}_evo1`), call("sqlite")]);
        expect(res.status).toBe(200);
        expect(res.body.output.structuredContent, `${tool} ${JSON.stringify(args)}`).toEqual(
          base.body.output.structuredContent,
        );
      }
    }
    const deep = await broker.post("/meta_call", {
      path: "/sqlite_evo1/evo.content.ancestors",
      args: { id: 390, limit: 10 },
    });
    expect(deep.body.output.structuredContent.items.length).toBeGreaterThan(1);
  });
});
