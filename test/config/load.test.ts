import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { configJsonSchema } from "../../src/export-config-schema.js";
import { ConfigError } from "../../src/config/errors.js";
import { loadConfig, parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { fuzzRuns } from "../helpers/fuzz.js";

const parse = (value: unknown, env: Record<string, string> = {}) =>
  parseConfig(
    typeof value === "string" ? value : JSON.stringify(value),
    "c.json",
    ConfigSchema,
    env,
  );
const problems = (value: unknown, env: Record<string, string> = {}): readonly string[] => {
  try {
    parse(value, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error("expected the config to be refused");
};

describe("config", () => {
  it("accepts the tree as a list and as an explicit root node", () => {
    const source = { backend: "stdio", command: "srv" };
    expect(parse({ tree: [{ path: "/a", source }] }).tree).toHaveLength(1);
    const root = parse({
      tree: { path: "/", type: "node", children: [{ path: "/a", type: "node", source }] },
    });
    expect(Array.isArray(root.tree)).toBe(false);
  });

  it("says where malformed JSON is broken", () => {
    expect(problems('{"tree": [}')[0]).toMatch(/^not valid JSON: Unexpected token/);
  });

  it("names the JSON path and the expectation of each invalid field", () => {
    const found = problems({
      tree: [{ path: "/a", source: { backend: "stdio", command: 42, tool_filter: "x" } }],
      expose: "everything",
    });
    expect(found.join("\n")).toContain("$.tree[0].source.command");
    expect(found.join("\n")).toContain("$.tree[0].source.tool_filter");
    expect(found.join("\n")).toMatch(/\$\.expose: .*"meta"/);
  });

  it("says what is wrong with an OAuth section", () => {
    const oauth = {
      issuer: "https://idp.example.com/realms/a",
      audience: "https://b.example.com/mcp",
    };
    expect(parse({ tree: [], auth: { oauth } }).auth?.oauth?.issuer).toBe(oauth.issuer);
    expect(problems({ tree: [], auth: {} }).join()).toMatch(
      /\$\.auth: auth needs tokens, oauth or both/,
    );
    const found = problems({
      tree: [],
      auth: {
        oauth: {
          ...oauth,
          issuer: "ftp://idp.example.com",
          algorithms: ["HS256"],
          scope_map: { read: ["read:/**"] },
          clock_skew_s: 3600,
        },
      },
    }).join("\n");
    expect(found).toMatch(/\$\.auth\.oauth\.issuer/);
    expect(found).toMatch(/\$\.auth\.oauth\.algorithms\[0\]: .*RS256/);
    expect(found).toMatch(/\$\.auth\.oauth\.scope_map\.read\[0\]: a scope is ACTION:PATH-GLOB/);
    expect(found).toMatch(/\$\.auth\.oauth\.clock_skew_s/);
  });

  it("says what is wrong with a backend's client credentials", () => {
    const source = (auth: unknown) => ({
      tree: [
        { path: "/r", source: { backend: "http", url: "https://tools.example.com/mcp", auth } },
      ],
    });
    const good = { client_id: "broker", client_secret: "s" };
    expect(parse(source({ client_credentials: good })).tree).toHaveLength(1);
    const found = problems(
      source({ client_credentials: { client_id: "", issuer: "file:///etc/passwd", extra: 1 } }),
    ).join("\n");
    expect(found).toMatch(/\$\.tree\[0\]\.source\.auth\.client_credentials\.client_id/);
    expect(found).toMatch(/\$\.tree\[0\]\.source\.auth\.client_credentials\.client_secret/);
    expect(found).toMatch(/\$\.tree\[0\]\.source\.auth\.client_credentials\.issuer/);
    expect(found).toMatch(/extra/);
    expect(problems(source({ bearer: "x" })).join()).toMatch(/\$\.tree\[0\]\.source\.auth/);
  });

  it("says a field given in two shapes is missing, or which shapes it takes, never the tree's shape", () => {
    expect(
      problems({ tree: [{ path: "/a", source: { backend: "stdio", comand: "srv" } }] }),
    ).toEqual([
      "$.tree[0].source.command: missing: expected string or array",
      '$.tree[0].source: Unrecognized key: "comand" (did you mean "command"?)',
    ]);
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.object()),
        (command) => {
          // `${` is read as a variable reference first, and answered as one.
          fc.pre(!JSON.stringify(command).includes("${"));
          const found = problems({ tree: [{ path: "/a", source: { backend: "stdio", command } }] });
          expect(found).toEqual(["$.tree[0].source.command: expected string or array"]);
        },
      ),
      { numRuns: fuzzRuns(200) },
    );
    expect(problems({ tree: 42 })).toEqual([
      "$.tree: expected a list of nodes or one root node object",
    ]);
  });

  it("refuses unknown keys, so a typo is not a silent default", () => {
    expect(problems({ tree: [{ path: "/a", sumary: "x" }] }).join()).toMatch(
      /\$\.tree\[0\].*sumary/,
    );
    expect(problems({ tree: [], timout: 3 }).join()).toMatch(/timout/);
  });

  it("names the key a mistyped one likely stands for, among those its own object takes", () => {
    expect(
      problems({
        expos: "flat",
        http: { statless: true, zzzzzz: 1 },
        tree: [{ path: "/x", sumary: "s", source: { backend: "stdio", command: "x", Env: {} } }],
      }),
    ).toEqual([
      '$.tree[0].source: Unrecognized key: "Env" (did you mean "env"?)',
      '$.tree[0]: Unrecognized key: "sumary" (did you mean "summary"?)',
      '$.http: Unrecognized keys: "statless" (did you mean "stateless"?), "zzzzzz"',
      '$: Unrecognized key: "expos" (did you mean "expose"?)',
    ]);
    // A source's keys written on its node: where they go.
    expect(problems({ tree: [{ path: "/x", backend: "stdio", command: "srv" }] })).toEqual([
      '$.tree[0]: Unrecognized keys: "backend" (it goes in $.tree[0].source), "command" (it goes in $.tree[0].source)',
    ]);
    // A key of another object is not named: `tool_filter` belongs to a source, not to a node.
    expect(problems({ tree: [{ path: "/x", tool_filtr: [] }] })).toEqual([
      '$.tree[0]: Unrecognized key: "tool_filtr"',
    ]);
  });

  it("refuses a backend it does not know, or none, listing those it knows", () => {
    expect(
      problems({
        tree: [{ path: "/a", source: { backend: "carrier-pigeon", command: "x" } }],
      }),
    ).toEqual([
      '$.tree[0].source.backend: no backend "carrier-pigeon": a source\'s "backend" is one of stdio, http, emcp, command, openapi, wasm, registry, builtin',
    ]);
    expect(
      problems({ tree: { path: "/", children: [{ path: "a", source: { command: "x" } }] } }),
    ).toEqual([
      '$.tree.children[0].source.backend: no backend given: a source\'s "backend" is one of stdio, http, emcp, command, openapi, wasm, registry, builtin',
    ]);
    expect(
      problems({ tree: [{ path: "/a", source: { backend: "stido", command: "x" } }] }),
    ).toEqual([
      '$.tree[0].source.backend: no backend "stido" (did you mean stdio?): a source\'s "backend" is one of stdio, http, emcp, command, openapi, wasm, registry, builtin',
    ]);
    expect(
      problems({
        tree: [{ path: "/a", source: { backend: "stdio", command: "x" } }],
        expose: "flta",
      }),
    ).toEqual([
      '$.expose: Invalid option: expected one of "meta"|"flat"|"both" (did you mean "flat"?)',
    ]);
  });

  it("names what is wrong with any backend value, never the tree's shape", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 2 }), (backend) => {
        fc.pre(
          !["stdio", "http", "emcp", "command", "openapi", "wasm", "registry", "builtin"].includes(
            backend as string,
          ),
        );
        // `${` is read as a variable reference first, and answered as one.
        fc.pre(!JSON.stringify(backend).includes("${"));
        const found = problems({ tree: [{ path: "/a", source: { backend } }] });
        expect(found).toHaveLength(1);
        expect(found[0]).toMatch(
          /^\$\.tree\[0\]\.source\.backend: no backend .*one of stdio, http/,
        );
      }),
      { numRuns: fuzzRuns(1000) },
    );
  });

  it("takes start_timeout_s from 0 exclusive to an hour, and names it when it is anything else", () => {
    const source = (start_timeout_s: unknown) => ({
      tree: [{ path: "/a", source: { backend: "stdio", command: "srv", start_timeout_s } }],
    });
    expect(parse(source(0.5)).tree).toBeTruthy();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ max: 0, noNaN: true }),
          fc.double({ min: 3600.001, noNaN: true }),
          fc.string(),
          fc.boolean(),
          fc.constant(null),
        ),
        (value) => {
          expect(problems(source(value)).join("\n")).toMatch(
            /^\$\.tree\[0\]\.source\.start_timeout_s: /,
          );
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });

  it("refuses a tool_overrides field of the wrong type, naming the tool", () => {
    const found = problems({
      tree: [
        {
          path: "/a",
          source: {
            backend: "stdio",
            command: "x",
            tool_overrides: { echo: { max_output_chars: -1, render_mode: "html" } },
          },
        },
      ],
    });
    expect(found.join("\n")).toContain("$.tree[0].source.tool_overrides.echo.max_output_chars");
    expect(found.join("\n")).toContain("$.tree[0].source.tool_overrides.echo.render_mode");
  });

  it("stops on a missing environment variable, naming it and where it is used", () => {
    expect(
      problems({ tree: [{ path: "/a", source: { backend: "stdio", command: "srv ${NOPE}" } }] }),
    ).toEqual(["$.tree[0].source.command: environment variable NOPE is not set"]);
    expect(
      parse(
        { tree: [{ path: "/a", source: { backend: "stdio", command: "srv ${YES}" } }] },
        { YES: "1" },
      ).tree,
    ).toBeTruthy();
  });

  it("reports an unreadable file by name, saying why in words", async () => {
    await expect(loadConfig("/nonexistent/config.json", ConfigSchema)).rejects.toThrow(
      /\/nonexistent\/config.json: .*cannot read the file: there is no such file \(ENOENT\)/s,
    );
    await expect(loadConfig(tmpdir(), ConfigSchema)).rejects.toThrow(
      /cannot read the file: it is a folder, not a file \(EISDIR\)/,
    );
  });

  it("ships an up-to-date config.schema.json (run `npm run schema` after changing the config)", () => {
    const shipped = JSON.parse(
      readFileSync(new URL("../../config.schema.json", import.meta.url), "utf8"),
    );
    expect(shipped).toEqual(configJsonSchema());
  });

  it("accepts the demo config", async () => {
    const config = await loadConfig(
      new URL("../../examples/demo.json", import.meta.url).pathname,
      ConfigSchema,
    );
    expect(config.expose).toBe("both");
  });
});
