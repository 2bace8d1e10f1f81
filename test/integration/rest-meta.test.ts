import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenBanner } from "../../src/app/listen-banner.js";
import {
  everythingCommand,
  fixtureCommand,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";

let broker: TestBroker;

beforeAll(async () => {
  broker = await startBroker({
    registry: { predefined: false },
    tree: [
      {
        path: "/demo",
        summary: "server-everything",
        source: {
          backend: "stdio",
          command: everythingCommand(),
          tool_filter: ["echo", "get-sum", "get-tiny-image", "get-structured-content"],
          path_aliases: { "get-sum": "add" },
          tool_overrides: {
            "get-sum": {
              summary: "Add two numbers",
              example_args: { a: 1, b: 2 },
              render_mode: "text",
            },
            "get-structured-content": { render_mode: "json" },
          },
        },
      },
      {
        path: "/fx",
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          tool_filter: ["!get_secret_*", "!crash", "!add_tool"],
          tool_overrides: { big: { max_output_chars: 300 }, sleep: { timeout: 0.3 } },
        },
      },
      { path: "/empty", summary: "A node with nothing under it" },
    ],
  });
});
afterAll(() => broker?.close());

describe("POST /meta_tree", () => {
  it("lists the direct children of the root, nodes first as configured", async () => {
    const res = await broker.post("/meta_tree", { path: "/" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      path: "/",
      children: [
        { path: "/demo", name: "demo", type: "node", summary: "server-everything" },
        { path: "/fx", name: "fx", type: "node" },
        { path: "/empty", name: "empty", type: "node", summary: "A node with nothing under it" },
      ],
    });
  });

  it("lists a source's tools after tool_filter, with aliases as leaf names", async () => {
    const res = await broker.post("/meta_tree", { path: "/demo" });
    expect(res.body.children.map((c: any) => c.path).sort()).toEqual(
      ["/demo/add", "/demo/echo", "/demo/get-structured-content", "/demo/get-tiny-image"].sort(),
    );
    expect(res.body.children.find((c: any) => c.path === "/demo/add")).toEqual({
      path: "/demo/add",
      name: "add",
      type: "tool",
      summary: "Add two numbers",
    });
    const fx = await broker.post("/meta_tree", { path: "/fx" });
    const names = fx.body.children.map((c: any) => c.name);
    expect(names).toContain("sleep");
    expect(names).not.toContain("get_secret_key");
    expect(names).not.toContain("crash");
  });

  it("defaults to the root and normalizes the path", async () => {
    expect((await broker.post("/meta_tree", {})).body.path).toBe("/");
    expect((await broker.post("/meta_tree", { path: "/demo/" })).body.path).toBe("/demo");
  });

  it("404 for a path that does not exist", async () => {
    const res = await broker.post("/meta_tree", { path: "/nope" });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ kind: "not_found", details: { path: "/nope" } });
    expect(res.body.error.message).toContain("/nope");
  });

  it("400 on a tool", async () => {
    const res = await broker.post("/meta_tree", { path: "/demo/echo" });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/is a tool, not a node/);
  });
});

describe("POST /meta_desc", () => {
  it("describes a tool: path, summary, description, exact args_schema, example_args", async () => {
    const res = await broker.post("/meta_desc", { path: "/demo/add" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      path: "/demo/add",
      type: "tool",
      summary: "Add two numbers",
      description: "Returns the sum of two numbers",
      example_args: { a: 1, b: 2 },
      render_mode: "text",
      flat_name: "demo__add",
      timeout_s: 60,
    });
    expect(res.body.args_schema).toMatchObject({
      type: "object",
      required: ["a", "b"],
      properties: { a: { type: "number" } },
    });
  });

  it("describes a node with its summarized children and its source's state", async () => {
    const res = await broker.post("/meta_desc", { path: "/fx" });
    expect(res.body.type).toBe("node");
    expect(res.body.source).toEqual({
      name: "/fx",
      state: "up",
      up: true,
      restarts: 0,
      attempts: 0,
      // In the sandboxed test project, the source's sandbox too.
      ...(process.env.MCP_BROKER_TEST_SANDBOX === "1" && {
        sandbox: expect.objectContaining({ network: "none", read: [], write: [] }),
      }),
    });
    expect(res.body.children.find((c: any) => c.name === "sleep")).toEqual({
      path: "/fx/sleep",
      name: "sleep",
      type: "tool",
      summary: "Waits ms milliseconds, then answers.",
    });
  });

  it("shows the limits of a tool", async () => {
    expect((await broker.post("/meta_desc", { path: "/fx/big" })).body.max_output_chars).toBe(300);
    expect((await broker.post("/meta_desc", { path: "/fx/sleep" })).body.timeout_s).toBe(0.3);
  });

  it("404 for an unknown path", async () => {
    expect((await broker.post("/meta_desc", { path: "/demo/nope" })).status).toBe(404);
  });
});

describe("POST /meta_call", () => {
  it("a backend that asks its caller for sampling is told a REST caller cannot be asked, and how to call", async () => {
    const res = await broker.post("/meta_call", { path: "/fx/ask", args: { question: "?" } });
    expect(res.body.is_error).toBe(true);
    expect(JSON.stringify(res.body.output)).toContain(
      "sampling/createMessage cannot reach the caller: its call came by the REST or JSON-RPC API, which cannot ask it anything; call the tool over MCP, from a client that offers sampling",
    );
  });

  it("calls the real tool by its real name through an alias, rendered as text", async () => {
    const res = await broker.post("/meta_call", { path: "/demo/add", args: { a: 2, b: 40 } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      path: "/demo/add",
      is_error: false,
      output: "The sum of 2 and 40 is 42.",
    });
  });

  it("passes MCP content through in mcp mode", async () => {
    const res = await broker.post("/meta_call", { path: "/demo/echo", args: { message: "héllo" } });
    expect(res.body.output).toEqual({ content: [{ type: "text", text: "Echo: héllo" }] });
    const image = await broker.post("/meta_call", { path: "/demo/get-tiny-image", args: {} });
    expect(
      image.body.output.content.some((c: any) => c.type === "image" && c.mimeType === "image/png"),
    ).toBe(true);
  });

  it("renders structuredContent in json mode", async () => {
    const res = await broker.post("/meta_call", {
      path: "/demo/get-structured-content",
      args: { location: "New York" },
    });
    expect(res.body.output).toMatchObject({ temperature: expect.any(Number) });
  });

  it("validates args against the schema before calling, naming each bad argument", async () => {
    const res = await broker.post("/meta_call", { path: "/demo/add", args: { a: "two" } });
    expect(res.status).toBe(400);
    expect(res.body.error.kind).toBe("invalid_params");
    expect(res.body.error.message).toContain("missing required argument 'b'");
    expect(res.body.error.message).toContain("argument 'a' must be number");
    expect(res.body.error.message).not.toContain("typo");
    // A misspelt argument: server-everything's schema takes any other key, so the typo
    // would go to the backend unseen but for the required one it stands for.
    const typo = await broker.post("/meta_call", { path: "/demo/echo", args: { mesage: "hi" } });
    expect(typo.body.error.message).toBe(
      "invalid arguments: missing required argument 'message' ('mesage' was given: a typo?)",
    );
  });

  it("truncates large output with an explicit wrapper", async () => {
    const res = await broker.post("/meta_call", {
      path: "/fx/big",
      args: { chars: 5000, items: 3 },
    });
    expect(res.status).toBe(200);
    const out = res.body.output;
    expect(out).toMatchObject({ truncated: true, max_output_chars: 300 });
    expect(out.original_chars).toBeGreaterThan(5000);
    expect(JSON.stringify(out.value).length).toBeLessThanOrEqual(300);
  });

  it("reports a tool's own error as is_error with status 200", async () => {
    const res = await broker.post("/meta_call", { path: "/fx/fail", args: {} });
    expect(res.status).toBe(200);
    expect(res.body.is_error).toBe(true);
  });

  it("cancels a call that passes its timeout: 504 naming the limit", async () => {
    const started = Date.now();
    const res = await broker.post("/meta_call", { path: "/fx/sleep", args: { ms: 5000 } });
    expect(res.status).toBe(504);
    expect(res.body.error.kind).toBe("timeout");
    expect(res.body.error.message).toMatch(/timeout of 0.3 s/);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(
      (await broker.post("/meta_call", { path: "/fx/sleep", args: { ms: 1 } })).body.output
        .content[0].text,
    ).toBe("slept 1");
  });

  it("400 on a node, 404 on a missing path", async () => {
    expect((await broker.post("/meta_call", { path: "/demo", args: {} })).body.error.message).toBe(
      "/demo is a node, not a tool (it holds /demo/echo, /demo/get-structured-content, /demo/add, /demo/get-tiny-image); call one of its tools (meta_desc on it says how), or use meta_tree to list what is under it",
    );
    expect((await broker.post("/meta_call", { path: "/empty", args: {} })).body.error.message).toBe(
      "/empty is a node, not a tool; use meta_tree to list what is under it",
    );
    expect((await broker.post("/meta_call", { path: "/demo/nope", args: {} })).status).toBe(404);
  });

  it("names the path a mistyped one was likely meant to be", async () => {
    const typo = await broker.post("/meta_call", { path: "/demo/ad", args: { a: 1, b: 2 } });
    expect(typo.status).toBe(404);
    expect(typo.body.error.message).toBe(
      "no entry at path /demo/ad (did you mean /demo/add?); use meta_tree to see what exists",
    );
    expect(typo.body.error.details).toEqual({ path: "/demo/ad", near: ["/demo/add"] });
    // The wrong case, the wrong node, a name typed in part: each is named for a retry.
    const near = async (route: string, path: string) =>
      (await broker.post(route, route === "/meta_call" ? { path, args: {} } : { path })).body.error
        .details.near as string[];
    expect(await near("/meta_desc", "/Demo/Echo")).toEqual(["/demo/echo"]);
    expect(await near("/meta_call", "/echo")).toEqual(["/demo/echo"]);
    expect(await near("/meta_tree", "/dmeo")).toEqual(["/demo"]);
    expect(await near("/meta_desc", "/demo/get-tiny")).toEqual(["/demo/get-tiny-image"]);
    // Nothing near: the message is as it was.
    const far = await broker.post("/meta_desc", { path: "/demo/nope" });
    expect(far.body.error).toEqual({
      kind: "not_found",
      message: "no entry at path /demo/nope; use meta_tree to see what exists",
      details: { path: "/demo/nope" },
    });
  });
});

describe("malformed requests", () => {
  it.each([
    ["malformed JSON", "/meta_call", '{"path": "/demo/echo", ', /not valid JSON/],
    ["an empty body", "/meta_tree", "", /body is empty/],
    ["a JSON array", "/meta_tree", "[1,2]", /expected object/],
    ["path of the wrong type", "/meta_desc", { path: 42 }, /\$\.path: .*string/],
    ["a relative path", "/meta_tree", { path: "demo" }, /absolute path/],
    ["a path with ..", "/meta_tree", { path: "/demo/../etc" }, /absolute path/],
    [
      "args of the wrong type",
      "/meta_call",
      { path: "/demo/echo", args: [1] },
      /\$\.args: .*object/,
    ],
    ["an unknown field", "/meta_call", { path: "/demo/echo", arguments: {} }, /arguments/],
    ["no path on meta_call", "/meta_call", { args: {} }, /\$\.path/],
  ])("%s: 400 with a message that says what is wrong", async (_what, endpoint, body, message) => {
    const res = await broker.post(endpoint, body);
    expect(res.status).toBe(400);
    expect(res.body.error.kind).toBe("invalid_params");
    expect(res.body.error.message).toMatch(message);
  });

  it("413 for a body over the limit, before parsing it", async () => {
    const res = await broker.post("/meta_call", {
      path: "/demo/echo",
      args: { message: "x".repeat(2 * 1024 * 1024) },
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({
      kind: "too_large",
      details: { max_request_bytes: 1048576 },
    });
  });

  it("404 naming the endpoints for an unknown endpoint", async () => {
    const res = await broker.post("/meta_list", { path: "/" });
    expect(res.status).toBe(404);
    for (const endpoint of ["/meta_search", "/meta_tree", "/meta_desc", "/meta_call", "/meta_run"])
      expect(res.body.error.message).toContain(endpoint);
  });

  it("keeps serving after all of that", async () => {
    expect(
      (await broker.post("/meta_call", { path: "/demo/echo", args: { message: "still here" } }))
        .status,
    ).toBe(200);
  });
});

describe("the banner printed once the broker listens", () => {
  it("names only endpoints that are served", async () => {
    const banner = listenBanner("127.0.0.1", Number(new URL(broker.url).port), false);
    const urls = (banner.match(/http:\/\/[^\s,]+/g) ?? []).filter((url) => !url.includes("<name>"));
    // "POST …/meta_search, /meta_tree, …": the paths after the first share its base.
    const listed = banner.match(/(?<=, )\/\w+/g) ?? [];
    expect(listed).toContain("/meta_run");
    const paths = [...urls.map((url) => new URL(url).pathname), ...listed];
    for (const path of paths) {
      const post = path.startsWith("/meta_") || path === "/rpc";
      const res = await fetch(`${broker.url}${path}`, {
        method: post ? "POST" : "GET",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: post ? "{}" : undefined,
      });
      expect(res.status, path).not.toBe(404);
      await res.body?.cancel();
    }
  });
});
