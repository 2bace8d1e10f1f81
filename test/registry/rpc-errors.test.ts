import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp } from "../helpers/mcp-client.js";
import { bearer, token } from "../helpers/tokens.js";
import { searchTool, startToolService, type ToolService } from "../helpers/tool-service.js";

const admin = token("admin", ["*:/**"]);
const caller = token("caller", ["call:/registry/**", "describe:/registry/**", "tree:/**"]);

/** Every error code of the tool registry protocol, each from a real cause. */
describe("the registry's error codes", () => {
  let broker: TestBroker;
  let healthy: ToolService;
  let slow: ToolService;
  let garbage: ToolService;

  beforeAll(async () => {
    [healthy, slow, garbage] = await Promise.all([
      startToolService("healthy"),
      startToolService("slow", { delayMs: 3000 }),
      startToolService("garbage"),
    ]);
    broker = await startBroker({
      tree: [],
      registry: { predefined: false },
      auth: { tokens: [admin, caller].map(({ id, sha256, scopes }) => ({ id, sha256, scopes })) },
      rate_limits: [{ token: "*", path: "/registry/limited/**", per_minute: 1, burst: 1 }],
    });
    for (const [name, service] of [
      ["search_tool", healthy],
      ["limited", healthy],
      ["sluggish", slow],
      ["babbler", garbage],
    ] as const) {
      const { body } = await rpc(admin, {
        jsonrpc: "2.0",
        method: "tools/register",
        params: { tool: searchTool(service.url, { name }) },
        id: name,
      });
      expect(body.result?.status, JSON.stringify(body)).toBe("registered");
    }
  });
  afterAll(async () => {
    await broker?.close();
    await Promise.all([healthy, slow, garbage].map((s) => s?.kill()));
  });

  function rpc(who: { bearer: string }, body: unknown) {
    return broker.post("/rpc", body, bearer(who));
  }
  const call = (tool: string, fn: string, args: object = {}, extra: object = {}) =>
    rpc(caller, {
      jsonrpc: "2.0",
      method: "tools/call",
      params: { tool_name: tool, function_name: fn, arguments: args, call_id: "c-1", ...extra },
      id: 7,
    });

  it("-32700 for a body that is not JSON", async () => {
    const { status, body } = await rpc(caller, "{not json");
    expect(status).toBe(200);
    expect(body).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
    expect(body.error.data.details).toContain("not JSON");
  });

  it("-32600 for a request that is not JSON-RPC 2.0, keeping its id", async () => {
    const { body } = await rpc(caller, { jsonrpc: "1.0", method: "tools/list", id: 4 });
    expect(body).toMatchObject({ error: { code: -32600 }, id: 4 });
    expect(body.error.data.details).toContain('"jsonrpc": "2.0"');
  });

  it("-32601 for an unknown method, naming the methods there are", async () => {
    const { body } = await rpc(caller, { jsonrpc: "2.0", method: "tools/frobnicate", id: 5 });
    expect(body).toMatchObject({ error: { code: -32601, message: "Method not found" }, id: 5 });
    expect(body.error.data.details).toContain("tools/register");
  });

  it("-32001 when the service ran the call and it failed, with its error_type and details", async () => {
    const { body } = await call("search_tool", "fail");
    expect(body.error).toEqual({
      code: -32001,
      message: "Tool execution failed",
      data: { call_id: "c-1", error_type: "upstream_error", details: "the index is offline" },
    });
  });

  it("-32002 for a tool that is not registered, naming those that are", async () => {
    const { body } = await call("no_such_tool", "web_search");
    expect(body.error).toMatchObject({
      code: -32002,
      message: "Tool not found",
      data: { call_id: "c-1", error_type: "tool_not_found" },
    });
    expect(body.error.data.details).toContain("search_tool");
    const typo = await call("serch_tool", "web_search");
    expect(typo.body.error.data.details).toMatch(
      /^no tool named "serch_tool" is registered \(did you mean search_tool\?\); /,
    );
  });

  it("-32003 for a function the tool does not have, naming those it has", async () => {
    const { body } = await call("search_tool", "image_search");
    expect(body.error).toMatchObject({ code: -32003, message: "Function not found" });
    expect(body.error.data.details).toContain("web_search");
    const typo = await call("search_tool", "web_serch");
    expect(typo.body.error.data.details).toMatch(
      /^tool search_tool has no function "web_serch" \(did you mean web_search\?\); /,
    );
  });

  it("-32004 for arguments that do not fit the function's parameters, naming the argument", async () => {
    const { body } = await call("search_tool", "web_search", { max_results: 50 });
    expect(body.error).toMatchObject({ code: -32004, message: "Invalid parameters" });
    expect(body.error.data.details).toContain("missing required argument 'query'");
    expect(body.error.data.details).toContain("max_results");
    expect((await healthy.stats()).last?.function_name).not.toBe("web_search");
  });

  it("-32004 when the service itself refuses the arguments", async () => {
    const { body } = await call("search_tool", "refuse");
    expect(body.error).toMatchObject({ code: -32004 });
    expect(body.error.data.details).toContain("query is too vague");
  });

  it("-32004 for a registration whose schema does not compile, with the reason", async () => {
    const tool = searchTool(healthy.url, { name: "broken" });
    tool.functions[0]!.parameters = {
      type: "object",
      properties: { q: { type: "strnig" } },
    } as never;
    const { body } = await rpc(admin, {
      jsonrpc: "2.0",
      method: "tools/register",
      params: { tool },
      id: 8,
    });
    expect(body.error).toMatchObject({ code: -32004 });
    expect(body.error.data.details).toContain(
      "tool.functions[0].parameters: not a valid JSON Schema",
    );
  });

  it("-32005 when the call outlasts the request's timeout", async () => {
    const started = Date.now();
    const { body } = await call("sluggish", "echo", {}, { timeout: 0.3 });
    expect(body.error).toMatchObject({ code: -32005, message: "Timeout" });
    expect(body.error.data).toMatchObject({ call_id: "c-1", error_type: "timeout" });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("-32006 when the service answers something that is not JSON-RPC", async () => {
    const { body } = await call("babbler", "echo");
    expect(body.error).toMatchObject({ code: -32006, message: "Service unavailable" });
    expect(body.error.data.details).toContain("not JSON");
    expect(body.error.data.details).not.toContain("<html>");
  });

  it("-32007 when the broker's rate limit is spent, and when the service says so", async () => {
    expect((await call("limited", "echo")).body.result.status).toBe("completed");
    const { body } = await call("limited", "echo");
    expect(body.error).toMatchObject({ code: -32007, message: "Rate limited" });
    expect(body.error.data.retry_after_s).toBeGreaterThan(0);
    expect((await call("search_tool", "busy")).body.error.code).toBe(-32007);
  });

  it("-32000 with HTTP 403 for a caller without the register scope; 401 without a token", async () => {
    const { status, body } = await rpc(caller, {
      jsonrpc: "2.0",
      method: "tools/register",
      params: { tool: searchTool(healthy.url, { name: "intruder" }) },
      id: 9,
    });
    expect(status).toBe(403);
    expect(body.error).toMatchObject({ code: -32000, data: { error_type: "forbidden" } });
    expect(body.error.data.details).toContain("register");
    const anonymous = await broker.post("/rpc", { jsonrpc: "2.0", method: "tools/list", id: 1 });
    expect(anonymous.status).toBe(401);
  });

  it("refuses an endpoint outside the allowed hosts, before storing anything", async () => {
    const { body } = await rpc(admin, {
      jsonrpc: "2.0",
      method: "tools/register",
      params: { tool: searchTool("http://10.1.2.3:8080/", { name: "elsewhere" }) },
      id: 10,
    });
    expect(body.error).toMatchObject({ code: -32004 });
    expect(body.error.data.details).toContain("10.1.2.3 is outside registry.allowed_hosts");
    const list = await rpc(admin, { jsonrpc: "2.0", method: "tools/list", id: 11 });
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).not.toContain("elsewhere");
  });

  it("tells MCP clients when a tool registers and when it leaves", async () => {
    const client = await connectHttp(broker.url, bearer(admin));
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified += 1;
    });
    try {
      await client.listTools();
      await rpc(admin, {
        jsonrpc: "2.0",
        method: "tools/register",
        params: { tool: searchTool(healthy.url, { name: "newcomer" }) },
        id: 12,
      });
      await expect.poll(() => notified, { timeout: 5000 }).toBeGreaterThan(0);
      const seen = notified;
      const { body } = await rpc(admin, {
        jsonrpc: "2.0",
        method: "tools/unregister",
        params: { tool_name: "newcomer" },
        id: 13,
      });
      expect(body.result).toEqual({ tool_id: "newcomer_v1", status: "unregistered" });
      await expect.poll(() => notified, { timeout: 5000 }).toBeGreaterThan(seen);
      expect((await call("newcomer", "echo")).body.error.code).toBe(-32002);
    } finally {
      await client.close();
    }
  });

  it("lists registered tools with their status and health", async () => {
    const { body } = await rpc(caller, { jsonrpc: "2.0", method: "tools/list", id: 14 });
    const search = body.result.tools.find((t: { name: string }) => t.name === "search_tool");
    expect(search).toMatchObject({
      tool_id: "search_tool_v1",
      category: "SEARCH",
      path: "/registry/search_tool",
      status: "AVAILABLE",
      health: { breaker: "closed" },
    });
    expect(search.functions.map((f: { name: string }) => f.name)).toContain("web_search");
  });
});
