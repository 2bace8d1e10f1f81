import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/errors.js";
import { KeyPlaces } from "../../src/config/key-places.js";
import { parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { fuzzRuns } from "../helpers/fuzz.js";

const problems = (value: unknown): readonly string[] => {
  try {
    parseConfig(JSON.stringify(value), "c.json", ConfigSchema, {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error("expected the config to be refused");
};
const stdio = { backend: "stdio", command: "srv" };

describe("a key written in the wrong object says where it goes", () => {
  it("a source's timeout: its node's limits, or a tool's", () => {
    expect(problems({ tree: [{ path: "/x", source: { ...stdio, timeout_s: 5 } }] })).toEqual([
      '$.tree[0].source: Unrecognized key: "timeout_s" (it goes in $.tree[0].limits or in $.tree[0].source.tool_overrides.<name>.limits)',
    ]);
  });

  it("a node's render_mode, which only the top level and a tool take", () => {
    expect(problems({ tree: [{ path: "/x", render_mode: "text", source: stdio }] })).toEqual([
      '$.tree[0]: Unrecognized key: "render_mode" (it goes at the top level or in $.tree[0].source.tool_overrides.<name>)',
    ]);
  });

  it("in a node nested in another, and in a tree given as one root node, the node's own source", () => {
    expect(
      problems({
        tree: [
          {
            path: "/a",
            children: [
              { path: "b", source: stdio },
              { path: "c", command: "x" },
            ],
          },
        ],
      }),
    ).toEqual([
      '$.tree[0].children[1]: Unrecognized key: "command" (it goes in $.tree[0].children[1].source)',
    ]);
    expect(problems({ tree: { path: "/", children: [{ path: "c", url: "http://h" }] } })).toEqual([
      '$.tree.children[0]: Unrecognized key: "url" (it goes in $.tree.children[0].source)',
    ]);
  });

  it("a key of another backend is not sent elsewhere, and a typo is named as one", () => {
    expect(
      problems({ tree: [{ path: "/x", source: { ...stdio, url: "http://h", tool_filtre: [] } }] }),
    ).toEqual([
      '$.tree[0].source: Unrecognized keys: "url", "tool_filtre" (did you mean "tool_filter"?)',
    ]);
  });

  it("a global setting written in a source: the top level", () => {
    expect(
      problems({ tree: [{ path: "/x", source: { ...stdio, redact: ["password"] } }] }),
    ).toEqual(['$.tree[0].source: Unrecognized key: "redact" (it goes at the top level)']);
  });

  it("one key too many and the one it needs missing: the same key under another name", () => {
    const [, cmd] = problems({ tree: [{ path: "/a", source: { backend: "stdio", cmd: "srv" } }] });
    expect(cmd).toBe(
      '$.tree[0].source: Unrecognized key: "cmd" (did you mean "command", the one key this object needs and lacks?)',
    );
    const spec = problems({
      tree: [{ path: "/api", source: { backend: "openapi", document: "api.json" } }],
    });
    expect(spec).toContain(
      '$.tree[0].source: Unrecognized key: "document" (did you mean "spec", the one key this object needs and lacks?)',
    );
    // A node's name for its path, not its source's name; a timeout for the limits beside it.
    expect(problems({ tree: [{ name: "/a", source: stdio }] })).toContain(
      '$.tree[0]: Unrecognized key: "name" (did you mean "path", the one key this object needs and lacks?)',
    );
    expect(
      problems({ tree: [{ path: "/b", source: { backend: "http", timeout_s: 5 } }] }),
    ).toContain('$.tree[0].source: Unrecognized key: "timeout_s" (it goes in $.tree[0].limits)');
  });

  it("never fails, whatever the key and wherever it was written", () => {
    const places = new KeyPlaces(ConfigSchema);
    const step = fc.oneof(
      fc.constantFrom("tree", "children", "source", "limits", "tool_overrides", "toolsets", "x"),
      fc.nat(3),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom("timeout_s", "url", "command", "path", "__proto__"), fc.string()),
        fc.array(step, { maxLength: 8 }),
        (key, at) => {
          const words = places.elsewhere(key, at);
          expect(words === "" || /^ \(it goes .+\)$/.test(words)).toBe(true);
          expect(Array.isArray(places.keysAt(at, {}))).toBe(true);
          expect(Array.isArray(places.lackingAt(at, {}))).toBe(true);
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });
});
