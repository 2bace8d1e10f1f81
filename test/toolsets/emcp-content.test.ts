import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { demoEngines } from "../helpers/emcp.js";
import { postMcp } from "../helpers/mcp-client.js";

const DOCS = 300;
const demo = await demoEngines("c");
const { engines, sqlite, prefix } = demo;

let broker: TestBroker;
/** The SQLite copy's documents, to check the tools against the tables themselves. */
let docs: { id: number; parent: number; deleted: number; menuindex: number }[];
const byMenu = (a: { menuindex: number; id: number }, b: { menuindex: number; id: number }) =>
  a.menuindex - b.menuindex || a.id - b.id;
beforeAll(async () => {
  await demo.load(DOCS);
  const { db } = openDatabase(sqlite, { prefix });
  docs = await db
    .selectFrom("site_content")
    .select(["id", "parent", "deleted", "menuindex"])
    .execute();
  await db.destroy();
  broker = await startBroker({
    tree: engines.map(([name, database]) => ({
      path: `/${name}`,
      source: { backend: "emcp", database, table_prefix: prefix, max_offset: 50 },
    })),
  });
}, 60_000);
afterAll(async () => {
  await broker?.close();
  await demo.drop();
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
      ["evo.content.siblings", { id: 30, limit: 4, with_tvs: ["price"] }],
      ["evo.content.descendants", { id: 1, depth: 3, limit: 20 }],
      ["evo.content.ancestors", { id: 290, limit: 10 }],
      ["evo.content.root_tree", { depth: 2, limit: 25, offset: 5 }],
      ["evo.content.neighbors", { id: 40, with_tvs: ["price"] }],
      ["evo.content.prev_siblings", { id: 40, limit: 10 }],
      ["evo.content.next_siblings", { id: 40, limit: 10 }],
      ["evo.content.children_range", { id: 2, from: 1, to: 3, limit: 10 }],
      ["evo.content.siblings_range", { id: 40, from: 0, limit: 10 }],
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
    [{ id: 1, limit: 5, with_tvs: ["nope"] }, /no TV is named "nope" \(with_tvs\)/],
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

describe("the tree tools against the tables themselves", () => {
  const live = () => docs.filter((d) => d.deleted === 0);
  const ids = async (tool: string, args: unknown) =>
    structured(await call("sqlite", tool, args)).items.map((i: { id: number }) => i.id);
  const chain = (id: number) => {
    const out: number[] = [];
    for (
      let at = docs.find((d) => d.id === id)!.parent;
      at !== 0;
      at = docs.find((d) => d.id === at)!.parent
    )
      out.push(at);
    return out;
  };

  it("ancestors: the chain to the root, nearest first; depth limits it", async () => {
    const deep = live().find(
      (d) =>
        chain(d.id).length >= 3 &&
        chain(d.id).every((a) => docs.find((x) => x.id === a)!.deleted === 0),
    )!;
    expect(await ids("evo.content.ancestors", { id: deep.id, limit: 10 })).toEqual(chain(deep.id));
    expect(await ids("evo.content.ancestors", { id: deep.id, depth: 1, limit: 10 })).toEqual([
      deep.parent,
    ]);
  });

  it("descendants: level by level, each in menu order, deleted left out", async () => {
    const top = 1;
    const level1 = live()
      .filter((d) => d.parent === top)
      .sort(byMenu);
    const level2 = live()
      .filter(
        (d) =>
          level1.some((p) => p.id === d.parent) ||
          docs.some((p) => p.parent === top && p.deleted === 1 && p.id === d.parent),
      )
      .sort((a, b) => a.parent - b.parent || byMenu(a, b));
    expect(await ids("evo.content.descendants", { id: top, limit: 100 })).toEqual(
      level1.map((d) => d.id),
    );
    expect(await ids("evo.content.descendants", { id: top, depth: 2, limit: 100 })).toEqual(
      [...level1, ...level2].map((d) => d.id),
    );
  });

  it("siblings: the same parent, menu order, without the document itself", async () => {
    const doc = live().find(
      (d) => d.parent !== 0 && live().filter((s) => s.parent === d.parent).length > 2,
    )!;
    const expected = live()
      .filter((s) => s.parent === doc.parent && s.id !== doc.id)
      .sort(byMenu)
      .map((s) => s.id);
    expect(await ids("evo.content.siblings", { id: doc.id, limit: 100 })).toEqual(expected);
  });

  it("root_tree with depth 1: the top-level documents", async () => {
    expect(await ids("evo.content.root_tree", { limit: 100 })).toEqual(
      live()
        .filter((d) => d.parent === 0)
        .sort(byMenu)
        .map((d) => d.id),
    );
  });
});

describe("the post-MVP sibling tools against the tables themselves", () => {
  const answer = async (tool: string, args: unknown) =>
    structured(await call("sqlite", tool, args));
  const siblingsOf = (id: number) => {
    const doc = docs.find((d) => d.id === id)!;
    return docs
      .filter((d) => d.parent === doc.parent && d.deleted === 0 && d.id !== id)
      .sort(byMenu);
  };
  const middle = () =>
    docs.find(
      (d) =>
        d.deleted === 0 &&
        d.parent !== 0 &&
        siblingsOf(d.id).length >= 4 &&
        siblingsOf(d.id).some((s) => byMenu(s, d) < 0),
    )!;

  it("prev_siblings and next_siblings split the siblings at the document, in menu order", async () => {
    const doc = middle();
    const before = siblingsOf(doc.id)
      .filter((s) => byMenu(s, doc) < 0)
      .map((s) => s.id);
    const after = siblingsOf(doc.id)
      .filter((s) => byMenu(s, doc) > 0)
      .map((s) => s.id);
    expect(
      (await answer("evo.content.prev_siblings", { id: doc.id, limit: 100 })).items.map(
        (i: any) => i.id,
      ),
    ).toEqual(before);
    expect(
      (await answer("evo.content.next_siblings", { id: doc.id, limit: 100 })).items.map(
        (i: any) => i.id,
      ),
    ).toEqual(after);
  });

  it("neighbors: the immediate previous and next, named in meta", async () => {
    const doc = middle();
    const before = siblingsOf(doc.id).filter((s) => byMenu(s, doc) < 0);
    const after = siblingsOf(doc.id).filter((s) => byMenu(s, doc) > 0);
    const got = await answer("evo.content.neighbors", { id: doc.id });
    expect(got.meta).toMatchObject({ prev: before.at(-1)?.id ?? null, next: after[0]?.id ?? null });
    expect(got.items.map((i: any) => i.id)).toEqual(
      [before.at(-1), after[0]].filter(Boolean).map((d) => d!.id),
    );
    expect((await answer("evo.content.neighbors", { id: 99999 })).meta).toMatchObject({
      prev: null,
      next: null,
      count: 0,
    });
  });

  it("neighbors are at most two, as Evolution's neighborsOf: limit and offset page them", async () => {
    const sides = (id: number) => {
      const doc = docs.find((d) => d.id === id)!;
      return {
        before: siblingsOf(id).filter((s) => byMenu(s, doc) < 0),
        after: siblingsOf(id).filter((s) => byMenu(s, doc) > 0),
      };
    };
    const doc = docs.find(
      (d) => d.deleted === 0 && sides(d.id).before.length >= 4 && sides(d.id).after.length >= 4,
    )!;
    const { before, after } = sides(doc.id);
    const [prev, next] = [before.at(-1)!.id, after[0]!.id];
    const ids = async (page: { limit?: number; offset?: number }) => {
      const got = await answer("evo.content.neighbors", { id: doc.id, ...page });
      expect(got.meta).toMatchObject({ prev, next });
      return { items: got.items.map((i: any) => i.id), has_more: got.meta.has_more };
    };
    // However large the limit, two at most: never further siblings.
    expect(await ids({ limit: 10 })).toEqual({ items: [prev, next], has_more: false });
    expect(await ids({ limit: 1 })).toEqual({ items: [prev], has_more: true });
    expect(await ids({ limit: 1, offset: 1 })).toEqual({ items: [next], has_more: false });
    expect(await ids({ offset: 2 })).toEqual({ items: [], has_more: false });
  });

  it("children_range and siblings_range take both bounds as included", async () => {
    const doc = middle();
    const parent = doc.parent;
    const children = docs.filter((d) => d.parent === parent && d.deleted === 0).sort(byMenu);
    const [from, to] = [children[1]!.menuindex, children[3]!.menuindex];
    const inRange = children
      .filter((c) => c.menuindex >= from && c.menuindex <= to)
      .map((c) => c.id);
    expect(
      (await answer("evo.content.children_range", { id: parent, from, to, limit: 100 })).items.map(
        (i: any) => i.id,
      ),
    ).toEqual(inRange);
    expect(
      (await answer("evo.content.siblings_range", { id: doc.id, from, to, limit: 100 })).items.map(
        (i: any) => i.id,
      ),
    ).toEqual(inRange.filter((id) => id !== doc.id));
    const refused = await call("sqlite", "evo.content.children_range", {
      id: parent,
      from: 5,
      to: 2,
      limit: 10,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe("to (2) must be at least from (5)");
  });
});
