import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NearPaths } from "../../src/tree/near-paths.js";

const PATHS = [
  "/",
  "/demo",
  "/demo/add",
  "/demo/echo",
  "/demo/get-tiny-image",
  "/memory",
  "/memory/add_observations",
  "/memory/read_graph",
  "/files",
  "/files/read_file",
  "/files/read_text_file",
  "/files/read_multiple_files",
  "/files/write_file",
  "/secret",
  "/secret/add",
  "/memory/create_entities",
];
// The config renamed /demo/add from the backend's get-sum.
const TREE = PATHS.map((p) => [p, p === "/demo/add" ? ["get-sum"] : []] as const);
const unnamed = (paths: string[]) => paths.map((p) => [p, []] as const);
const everything = () => true;
const notSecret = (path: string) => !path.startsWith("/secret");

describe("NearPaths", () => {
  const near = new NearPaths(TREE);

  it("names the path a typo, a case or a wrong node came from", () => {
    expect(near.near("/demo/ad", everything)[0]).toBe("/demo/add");
    expect(near.near("/demo/ehco", everything)).toEqual(["/demo/echo"]);
    expect(near.near("/Demo/Echo", everything)).toEqual(["/demo/echo"]);
    expect(near.near("/dmeo", everything)).toEqual(["/demo"]);
    expect(near.near("/tools/echo", everything)).toEqual(["/demo/echo"]);
    expect(near.near("/memory/read_grahp/", everything)).toEqual(["/memory/read_graph"]);
    expect(near.near("/memory/create_entity", everything)).toEqual(["/memory/create_entities"]);
  });

  it("counts two neighbouring letters swapped as one typo, so short names are found too", () => {
    expect(near.near("/demo/dad", everything)).toEqual(["/demo/add", "/secret/add"]);
    expect(near.near("/mmeory", everything)).toEqual(["/memory"]);
  });

  it("knows a renamed tool by its backend's name too", () => {
    expect(near.near("/demo/get-sum", everything)).toEqual(["/demo/add"]);
    expect(near.near("/demo/get_sum", everything)).toEqual(["/demo/add"]);
    expect(near.near("/get-sum", everything)).toEqual(["/demo/add"]);
  });

  it("ranks the node asked for first, then fewer typos, and gives three at most", () => {
    // "add" is under /demo and /secret as it is, and begins a tool of /memory.
    expect(near.near("/memory/add", everything)).toEqual([
      "/memory/add_observations",
      "/demo/add",
      "/secret/add",
    ]);
    expect(near.near("/files/read", everything)).toEqual([
      "/files/read_file",
      "/files/read_text_file",
      "/files/read_multiple_files",
    ]);
  });

  it("names only what the caller is offered, and nothing for what is far from every name", () => {
    expect(near.near("/add", notSecret)).toEqual(["/demo/add", "/memory/add_observations"]);
    expect(near.near("/secret/ad", notSecret)).toEqual(["/demo/add"]);
    expect(near.near("/nothing-like-it", everything)).toEqual([]);
    expect(near.near("/", everything)).toEqual([]);
    expect(near.near("not a path", everything)).toEqual([]);
    expect(near.near(`/${"x".repeat(100_000)}`, everything)).toEqual([]);
  });

  const segment = fc.stringMatching(/^[a-zA-Z0-9_.-]{1,12}$/);
  const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/${s.join("/")}`);

  it("answers any string with at most three offered paths, never the one asked for", () => {
    fc.assert(
      fc.property(
        fc.array(path, { maxLength: 40 }),
        fc.string({ maxLength: 200 }),
        (paths, asked) => {
          const offered = (p: string) => p.length % 2 === 0;
          const found = new NearPaths(unnamed(paths)).near(asked, offered);
          expect(found.length).toBeLessThanOrEqual(3);
          for (const p of found) {
            expect(paths).toContain(p);
            expect(offered(p)).toBe(true);
            expect(p).not.toBe(asked);
          }
        },
      ),
    );
  });

  it("gives the same answer whether a path the caller is not offered exists or not", () => {
    fc.assert(
      fc.property(fc.array(path, { maxLength: 40 }), path, (paths, hidden) => {
        const offered = (p: string) => p !== hidden;
        const without = paths.filter((p) => p !== hidden);
        expect(new NearPaths(unnamed([...without, hidden])).near(hidden, offered)).toEqual(
          new NearPaths(unnamed(without)).near(hidden, offered),
        );
      }),
    );
  });
});
