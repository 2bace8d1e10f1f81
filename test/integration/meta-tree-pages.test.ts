import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { connectHttp } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

/** 250 nodes under /big, n000 to n249, as a large API's operations would be. */
const names = Array.from({ length: 250 }, (_, i) => `n${String(i).padStart(3, "0")}`);
const admin = token("admin", ["*:/**"]);
// Sees every other child of /big: a page counts only what its caller may see.
const evens = token("evens", [...names.filter((_, i) => i % 2 === 0).map((n) => `tree:/big/${n}`)]);

let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker({
    auth: { tokens: configEntries(admin, evens) },
    registry: { predefined: false },
    tree: [{ path: "/big" }, ...names.map((n) => ({ path: `/big/${n}`, summary: `node ${n}` }))],
  });
});
afterAll(() => broker?.close());

const tree = async (body: unknown, who = admin) =>
  (await broker.post("/meta_tree", body, bearer(who))).body;
const namesOf = (listing: { children: { name: string }[] }) => listing.children.map((c) => c.name);

describe("a node with many children", () => {
  it("lists a first part, and says how many there are and where the next part starts", async () => {
    const first = await tree({ path: "/big" });
    expect(namesOf(first)).toEqual(names.slice(0, 100));
    expect(first).toMatchObject({ path: "/big", total: 250, next_offset: 100 });
    expect(first.notice).toBe(
      '250 children, these are 1 to 100: ask again with offset 100 for the next, or meta_search with path "/big" to find one by what it does',
    );
    const second = await tree({ path: "/big", offset: 100 });
    expect(namesOf(second)).toEqual(names.slice(100, 200));
    expect(second).toMatchObject({ total: 250, next_offset: 200 });
    // The last part: no next offset, no notice.
    const last = await tree({ path: "/big", offset: 200 });
    expect(namesOf(last)).toEqual(names.slice(200));
    expect(last).toEqual({ path: "/big", children: last.children, total: 250 });
    expect(await tree({ path: "/big", offset: 400 })).toEqual({
      path: "/big",
      children: [],
      total: 250,
    });
  });

  it("gives any offset the children from there, at most 100, and says what is left (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 400 }), async (offset) => {
        const part = await tree({ path: "/big", offset });
        expect(namesOf(part)).toEqual(names.slice(offset, offset + 100));
        expect(part.total).toBe(250);
        expect(part.next_offset).toBe(offset + 100 < 250 ? offset + 100 : undefined);
      }),
      { numRuns: fuzzRuns(30) },
    );
  });

  it("answers a node that fits in one part as it always did", async () => {
    const fits = await tree({ path: "/" });
    expect(fits).toEqual({ path: "/", children: [{ path: "/big", name: "big", type: "node" }] });
  });

  it("pages what its caller may see, so a part is full and its count its own", async () => {
    const first = await tree({ path: "/big" }, evens);
    expect(namesOf(first)).toEqual(names.filter((_, i) => i % 2 === 0).slice(0, 100));
    expect(first).toMatchObject({ total: 125, next_offset: 100 });
  });

  it("meta_desc of the node gives its first children, and says how to list the rest", async () => {
    const node = (await broker.post("/meta_desc", { path: "/big" }, bearer(admin))).body;
    expect(namesOf(node)).toEqual(names.slice(0, 100));
    expect(node).toMatchObject({ path: "/big", type: "node", children_total: 250 });
    expect(node.notice).toBe(
      '250 children, these are the first 100: meta_tree with offset 100 lists the next, or meta_search with path "/big" finds one by what it does',
    );
    const small = (await broker.post("/meta_desc", { path: "/" }, bearer(admin))).body;
    expect(small).toEqual({
      path: "/",
      type: "node",
      children: [{ path: "/big", name: "big", type: "node" }],
    });
  });

  it("refuses an offset that is not one, naming it", async () => {
    for (const [body, message] of [
      [{ path: "/big", offset: -1 }, /offset: must be 0 or more/],
      [{ path: "/big", offset: 1.5 }, /offset: expected a whole number/],
      [{ path: "/big", offset: "100" }, /offset: expected a whole number/],
      [{ path: "/big", limit: 10 }, /limit/],
    ] as const) {
      const res = await broker.post("/meta_tree", body, bearer(admin));
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
  });

  it("pages the same over MCP, where a model reads the notice", async () => {
    const client = await connectHttp(broker.url, bearer(admin));
    try {
      const { tools } = await client.listTools();
      const schema = tools.find((t) => t.name === "meta_tree")!.inputSchema;
      expect(Object.keys(schema.properties ?? {})).toEqual(["path", "offset"]);
      const result = await client.callTool({
        name: "meta_tree",
        arguments: { path: "/big", offset: 200 },
      });
      const listing = JSON.parse((result.content as { text: string }[])[0]!.text);
      expect(namesOf(listing)).toEqual(names.slice(200));
      expect(listing.total).toBe(250);
      const described = await client.callTool({ name: "meta_desc", arguments: { path: "/big" } });
      const node = JSON.parse((described.content as { text: string }[])[0]!.text);
      expect(node.children).toHaveLength(100);
      expect(node.children_total).toBe(250);
    } finally {
      await client.close();
    }
  });
});
