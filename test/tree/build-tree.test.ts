import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { buildTree, summarize } from "../../src/tree/build-tree.js";
import { buildSkeleton } from "../../src/tree/skeleton.js";

const tool = (
  name: string,
  description = "",
  inputSchema: Tool["inputSchema"] = { type: "object" },
): Tool => ({ name, description, inputSchema });

function build(
  source: Record<string, unknown>,
  tools: Tool[],
  extra: Record<string, unknown> = {},
) {
  const config = parseConfig(
    JSON.stringify({
      ...extra,
      tree: [{ path: "/s", source: { backend: "stdio", command: "x", ...source } }],
    }),
    "t",
    ConfigSchema,
    {},
  );
  const problems: string[] = [];
  const skeleton = buildSkeleton(config, problems);
  expect(problems).toEqual([]);
  return buildTree(config, skeleton, new Map([["/s", tools]]));
}

describe("buildTree", () => {
  it("applies filter, then overrides, then aliases, keeping the backend's tool name", () => {
    const { tree } = build(
      {
        tool_filter: ["get_*"],
        tool_overrides: {
          get_file_contents: {
            summary: "Read a file",
            timeout: 5,
            max_output_chars: 100,
            render_mode: "text",
          },
        },
        path_aliases: { get_file_contents: "get_file" },
      },
      [tool("get_file_contents", "Reads. Long text."), tool("delete_file")],
    );
    const leaf = tree.tool("/s/get_file");
    expect(leaf).toMatchObject({
      toolName: "get_file_contents",
      summary: "Read a file",
      timeoutMs: 5000,
      maxOutputChars: 100,
      renderMode: "text",
      flatName: "s__get_file",
    });
    expect(tree.get("/s/delete_file")).toBeUndefined();
    expect(tree.get("/s/get_file_contents")).toBeUndefined();
  });

  it("takes defaults from the top of the config", () => {
    const { tree } = build({}, [tool("a")], {
      timeout: 7,
      max_output_chars: 50,
      render_mode: "json",
    });
    expect(tree.tool("/s/a")).toMatchObject({
      timeoutMs: 7000,
      maxOutputChars: 50,
      renderMode: "json",
    });
  });

  it("leaves out a tool whose inputSchema does not compile, saying why", () => {
    const { tree, problems } = build({}, [
      tool("ok"),
      tool("broken", "", {
        type: "object",
        properties: { a: { type: "no-such-type" } },
      } as Tool["inputSchema"]),
    ]);
    expect(tree.get("/s/ok")).toBeDefined();
    expect(tree.get("/s/broken")).toBeUndefined();
    expect(problems[0]).toMatch(/tool "broken" of \/s has an invalid inputSchema/);
  });

  it("warns of overrides and aliases naming no tool, and of example_args that do not fit", () => {
    const { warnings } = build(
      {
        tool_overrides: { echoo: { summary: "typo" }, echo: { example_args: { msg: 1 } } },
        path_aliases: { nope: "x" },
      },
      [
        tool("echo", "", {
          type: "object",
          properties: { message: { type: "string" } },
          required: ["message"],
        }),
      ],
    );
    expect(warnings).toEqual([
      'tool_overrides of /s names tool "echoo", which the source does not offer',
      'path_aliases of /s names tool "nope", which the source does not offer',
      "example_args of /s/echo do not fit its args_schema: invalid arguments: missing required argument 'message'",
    ]);
  });

  it("reports two leaves that would get one flat name", () => {
    const config = parseConfig(
      JSON.stringify({
        tree: [
          { path: "/a b", source: { backend: "stdio", command: "x" } },
          { path: "/a_b", source: { backend: "stdio", command: "y" } },
        ],
      }),
      "t",
      ConfigSchema,
      {},
    );
    const skeleton = buildSkeleton(config, []);
    const { problems } = buildTree(
      config,
      skeleton,
      new Map([
        ["/a b", [tool("c")]],
        ["/a_b", [tool("c")]],
      ]),
    );
    expect(problems).toEqual([
      '/a_b/c and /a b/c both get the flat tool name "a_b__c"; rename one with path_aliases',
    ]);
  });

  it("summarizes a description by its first sentence", () => {
    expect(summarize("Reads a file. Then more.")).toBe("Reads a file.");
    expect(summarize("\n  First line\nsecond")).toBe("First line");
    expect(summarize("x".repeat(300))).toHaveLength(160);
    expect(summarize("")).toBeUndefined();
  });
});
