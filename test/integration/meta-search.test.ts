import { writeFileSync } from "node:fs";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  everythingCommand,
  fixtureCommand,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";
import { connectHttp, textOf, META_TOOL_NAMES } from "../helpers/mcp-client.js";
import { startEmbeddingsServer } from "../helpers/embeddings-server.js";
import { startToolService, type ToolService } from "../helpers/tool-service.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const admin = token("admin", ["*:/**"]);
const demoOnly = token("demo-only", ["tree:/**", "describe:/**", "call:/demo/**"]);
const fxReader = token("fx-reader", ["tree:/fx/**", "describe:/fx/**", "call:/fx/**"]);

const FX_TOOLS = ["sleep", "pid", "add_tool", "count", "log", "ask", "launch_*"];
const config = (fxSummary: string) => ({
  expose: "meta",
  auth: { tokens: configEntries(admin, demoOnly, fxReader) },
  registry: { predefined: false },
  tree: [
    {
      path: "/demo",
      summary: "server-everything",
      source: {
        backend: "stdio",
        command: everythingCommand(),
        tool_filter: ["echo", "get-sum", "get-tiny-image"],
      },
    },
    {
      path: "/fx",
      summary: fxSummary,
      source: { backend: "stdio", command: fixtureCommand(), tool_filter: FX_TOOLS },
    },
  ],
});

let broker: TestBroker;
let service: ToolService;
beforeAll(async () => {
  broker = await startBroker(config("test fixture"), { reload: true });
  service = await startToolService("healthy");
});
afterAll(async () => {
  await broker?.close();
  await service?.kill();
});

const search = (body: unknown, who = admin) => broker.post("/meta_search", body, bearer(who));
/** Registers a tool service with these functions on /rpc, as admin. */
const register = (name: string, description: string, functions: unknown[]) =>
  broker.post(
    "/rpc",
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/register",
      params: {
        tool: { name, description, category: "OCEAN", endpoint: service.url, functions },
      },
    },
    bearer(admin),
  );
const paths = (res: { body: { results: { path: string }[] } }) =>
  res.body.results.map((r) => r.path);

describe("POST /meta_search", () => {
  it("ranks the tools for a request in words, best first, with their summaries and why", async () => {
    const res = await search({ query: "add two numbers together" });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toEqual({
      path: "/demo/get-sum",
      summary: "Returns the sum of two numbers",
      score: expect.any(Number),
      // The request's words as written, and the fields of the tool that have them.
      matched: { two: ["description"], numbers: ["description", "parameters"] },
    });
    const scores = res.body.results.map((r: { score: number }) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(paths(await search({ query: "wait some milliseconds", limit: 1 }))).toEqual([
      "/fx/sleep",
    ]);
  });

  it("adds each tool's args_schema when asked, so that a model can call at once", async () => {
    const res = await search({ query: "echo a message back", limit: 1, include_schema: true });
    expect(res.body.results[0]).toMatchObject({
      path: "/demo/echo",
      args_schema: { type: "object", properties: { message: { type: "string" } } },
      // As meta_desc format typescript declares it for meta_run.
      declaration: expect.stringMatching(
        /^echo\(args: \{[^]*message: string;[^]*\}\): Promise<.+>;$/,
      ),
    });
    const call = await broker.post(
      "/meta_call",
      { path: res.body.results[0].path, args: { message: "found" } },
      bearer(admin),
    );
    expect(call.body.output.content[0].text).toBe("Echo: found");
    const plain = (await search({ query: "echo a message back" })).body.results[0];
    expect(plain.args_schema).toBeUndefined();
    expect(plain.declaration).toBeUndefined();
  });

  it("searches under a node only when given a path", async () => {
    const all = paths(await search({ query: "numbers process id", limit: 10 }));
    expect(all).toEqual(expect.arrayContaining(["/demo/get-sum", "/fx/pid"]));
    const underFx = paths(await search({ query: "numbers process id", path: "/fx" }));
    expect(underFx).toContain("/fx/pid");
    for (const p of underFx) expect(p).toMatch(/^\/fx\//);
  });

  it("gives only the tools the caller may call", async () => {
    const demo = paths(await search({ query: "process id sum echo sleep", limit: 50 }, demoOnly));
    expect(demo.length).toBeGreaterThan(0);
    for (const p of demo) expect(p).toMatch(/^\/demo\//);
    const fx = paths(await search({ query: "process id sum echo sleep", limit: 50 }, fxReader));
    for (const p of fx) expect(p).toMatch(/^\/fx\//);
    // A node no scope of the caller reaches is not there, as meta_tree answers it.
    const refused = await search({ query: "sum", path: "/demo" }, fxReader);
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toBe(
      "no entry at path /demo; use meta_tree to see what exists",
    );
  });

  it("says where to browse when nothing matched, naming only what the caller may see", async () => {
    const none = await search({ query: "zyzzyva quux" });
    expect(none.body.results).toEqual([]);
    expect(none.body.notice).toBe(
      "no tool matched a word of the query; try other words for what the tool does (an action and what it acts on), or browse / with meta_tree (it holds /demo, /fx)",
    );
    const reader = await search({ query: "zyzzyva quux" }, fxReader);
    expect(reader.body.notice).toMatch(/, or browse \/ with meta_tree \(it holds \/fx\)$/);
    const underFx = await search({ query: "zyzzyva quux", path: "/fx" });
    expect(underFx.body.notice).toMatch(
      /^no tool under \/fx matched a word of the query; .*, or browse \/fx with meta_tree \(it holds \/fx\/sleep, \/fx\/pid, .*\)$/,
    );
    expect((await search({ query: "echo a message back" })).body.notice).toBeUndefined();
  });

  it("names a mistyped path's likely meaning to a model, from what its caller may see", async () => {
    const admins = await connectHttp(broker.url, bearer(admin));
    const readers = await connectHttp(broker.url, bearer(fxReader));
    try {
      const call = (client: typeof admins, path: string) =>
        client.callTool({ name: "meta_call", arguments: { path, args: {} } });
      const typo = await call(admins, "/demo/ehco");
      expect(typo.isError).toBe(true);
      expect(textOf(typo)).toMatch(/no entry at path \/demo\/ehco \(did you mean \/demo\/echo\?\)/);
      // The same typo from a caller who may not see /demo: nothing of /demo is named.
      const unseen = await call(readers, "/demo/ehco");
      expect(unseen.isError).toBe(true);
      expect(textOf(unseen)).not.toMatch(/did you mean/);
      expect(textOf(await call(readers, "/fx/pd"))).toMatch(/did you mean \/fx\/pid\?/);
    } finally {
      await admins.close();
      await readers.close();
    }
  });

  it("searches a request with a pasted image on its words, and says so", async () => {
    const image = `data:image/png;base64,${"iVBORw0KGgoAAAANSUhEUg".repeat(3000)}`;
    const res = await search({ query: `add two numbers ${image} and tell me the sum` });
    expect(res.status).toBe(200);
    expect(res.body.results[0].path).toBe("/demo/get-sum");
    expect(res.body.notice).toMatch(/searched on its words, without runs of characters/);
    expect((await search({ query: "add two numbers" })).body.notice).toBeUndefined();
  });

  it("refuses bad requests with a message that says what to send", async () => {
    const cases: [unknown, number, RegExp][] = [
      [{ query: "" }, 400, /query: is empty; say what the tool should do/],
      [{ query: "   " }, 400, /query: is empty/],
      [{}, 400, /query: expected a string/],
      [{ query: 42 }, 400, /query: expected a string/],
      [{ query: "x".repeat(100_001) }, 400, /longer than 100000 characters/],
      [{ query: "sum", limit: 0 }, 400, /limit: must be from 1 to 50/],
      [{ query: "sum", limit: 51 }, 400, /limit: must be from 1 to 50/],
      [{ query: "sum", limit: 2.5 }, 400, /limit: expected a whole number/],
      [{ query: "sum", path: "demo" }, 400, /path: must be an absolute path/],
      [{ query: "sum", include_schema: "yes" }, 400, /include_schema/],
      [{ query: "sum", extra: 1 }, 400, /extra/],
      [{ query: "sum", path: "/nowhere" }, 404, /no entry at path \/nowhere/],
      ["", 400, /request body is empty; send a JSON object such as \{"query": "read a file"\}/],
      ["{not json", 400, /not valid JSON/],
    ];
    for (const [body, status, message] of cases) {
      const res = await search(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
  });
});

describe("meta_search over MCP and /rpc", () => {
  it("is a meta tool, answering the same as REST", async () => {
    const client = await connectHttp(broker.url, bearer(admin));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(META_TOOL_NAMES);
    const found = await client.callTool({
      name: "meta_search",
      arguments: { query: "add two numbers together", limit: 2 },
    });
    const rest = await search({ query: "add two numbers together", limit: 2 });
    expect(JSON.parse(textOf(found))).toEqual(rest.body);

    const bad = await client.callTool({ name: "meta_search", arguments: { query: "" } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/query: is empty/);
    await client.close();
  });

  it("is tools/search on /rpc", async () => {
    const res = await broker.post(
      "/rpc",
      { jsonrpc: "2.0", id: 7, method: "tools/search", params: { query: "add two numbers" } },
      bearer(admin),
    );
    expect(res.body.result.results[0].path).toBe("/demo/get-sum");
    const bad = await broker.post(
      "/rpc",
      { jsonrpc: "2.0", id: 8, method: "tools/search", params: { query: "sum", limit: 99 } },
      bearer(admin),
    );
    expect(bad.body.error).toMatchObject({ code: -32004 });
    expect(JSON.stringify(bad.body.error)).toMatch(/limit: must be from 1 to 50/);
  });
});

describe("the index follows the tree", () => {
  it("finds a tool a source adds at run time (list_changed) within a second", async () => {
    expect(paths(await search({ query: "zeppelin" }))).toEqual([]);
    const added = await broker.post(
      "/meta_call",
      { path: "/fx/add_tool", args: { name: "launch_zeppelin" } },
      bearer(admin),
    );
    expect(added.status).toBe(200);
    await expect
      .poll(async () => paths(await search({ query: "zeppelin" })), { timeout: 1000, interval: 50 })
      .toEqual(["/fx/launch_zeppelin"]);
  });

  it("finds a tool registered on /rpc", async () => {
    const res = await register("tide_tables", "Tides of harbours", [
      {
        name: "high_water",
        description: "When the high tide comes at a harbour",
        parameters: { type: "object", properties: { harbour: { type: "string" } } },
      },
    ]);
    expect(res.body.error).toBeUndefined();
    await expect
      .poll(async () => paths(await search({ query: "when is high tide in Brest" })), {
        timeout: 1000,
        interval: 50,
      })
      .toContain("/registry/tide_tables/high_water");
  });

  it("lists after a hit the tool that finds the id it requires, saying so", async () => {
    const res = await register("lighthouses", "Lighthouses of the coast", [
      {
        name: "search_lighthouses",
        description: "Lighthouses by name",
        parameters: { type: "object", properties: { name: { type: "string" } } },
      },
      {
        name: "beam_range",
        description: "How far the beam of a lighthouse reaches",
        parameters: {
          type: "object",
          properties: { lighthouse_id: { type: "string" } },
          required: ["lighthouse_id"],
        },
      },
    ]);
    expect(res.body.error).toBeUndefined();
    const found = async () =>
      (await search({ query: "how far does the beam of Ar-Men reach", limit: 2 })).body;
    await expect
      .poll(async () => paths({ body: await found() }), { timeout: 1000 })
      .toEqual(["/registry/lighthouses/beam_range", "/registry/lighthouses/search_lighthouses"]);
    expect((await found()).results[1]).toMatchObject({
      prerequisite_of: { path: "/registry/lighthouses/beam_range", parameter: "lighthouse_id" },
    });
  });

  it("follows a reload of the config", async () => {
    const before = await search({ query: "harbour lighthouse keeper" });
    expect(paths(before)).not.toContain("/fx/pid");
    writeFileSync(broker.configFile, JSON.stringify(config("lighthouse keeper tools")));
    await expect
      .poll(async () => paths(await search({ query: "harbour lighthouse keeper", limit: 50 })), {
        timeout: 5000,
        interval: 100,
      })
      .toContain("/fx/pid");
  });
});

describe("meta_search with an embeddings endpoint in the config", () => {
  it("finds a tool by meaning through the broker, its vectors kept in the state store", async () => {
    process.env.MCP_BROKER_TEST_EMBEDDINGS_KEY = "sk-test";
    const engine = await startEmbeddingsServer();
    const withEngine = await startBroker({
      registry: { predefined: false },
      tool_search: {
        embeddings: {
          url: engine.url,
          model: "mini-embed",
          api_key_env: "MCP_BROKER_TEST_EMBEDDINGS_KEY",
        },
      },
      tree: [
        {
          path: "/meteo",
          summary: "Meteorological outlooks",
          source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["pid", "sleep"] },
        },
      ],
    });
    try {
      await withEngine.broker.searchSettled();
      expect(engine.requests[0]).toMatchObject({
        model: "mini-embed",
        authorization: "Bearer sk-test",
      });
      const res = await withEngine.post("/meta_search", {
        query: "will it rain tomorrow",
        limit: 1,
      });
      // No tool says "rain": the fixture's node speaks of outlooks, which the engine relates.
      expect(res.body.results.map((r: { path: string }) => r.path)[0]).toMatch(/^\/meteo\//);
    } finally {
      await withEngine.close();
      await engine.close();
    }
  });
});

describe("meta_search's description", () => {
  const described = async (client: Awaited<ReturnType<typeof connectHttp>>) => {
    const { tools } = await client.listTools();
    expect(JSON.stringify(tools).length).toBeLessThanOrEqual(3072);
    return {
      search: tools.find((t) => t.name === "meta_search")!.description!,
      tree: tools.find((t) => t.name === "meta_tree")!.description!,
    };
  };

  it("names what the caller may see at the top of the tree, and follows the tree with list_changed", async () => {
    const admins = await connectHttp(broker.url, bearer(admin));
    const readers = await connectHttp(broker.url, bearer(fxReader));
    try {
      const before = await described(admins);
      // Other tests of this file may have registered a service, which mounts a node besides.
      expect(before.search).toMatch(/Holds: demo \(server-everything\); fx \(/);
      expect(before.tree).toMatch(/Holds: demo; fx\b/);
      expect((await described(readers)).search).toMatch(/Holds: fx \([^;]+\)\.$/);

      let notified = 0;
      admins.setNotificationHandler(ToolListChangedNotificationSchema, () => void notified++);
      writeFileSync(broker.configFile, JSON.stringify(config("harbour master tools")));
      await expect.poll(() => notified, { timeout: 10_000 }).toBeGreaterThan(0);
      await expect
        .poll(async () => (await described(admins)).search, { timeout: 5000 })
        .toMatch(/fx \(harbour master tools\)/);
    } finally {
      await admins.close();
      await readers.close();
    }
  });
});
