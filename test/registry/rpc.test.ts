import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";
import { searchTool, startToolService, type ToolService } from "../helpers/tool-service.js";

/** The protocol's examples, literally, with the endpoint the protocol's message leaves out. */
const EXAMPLE_REGISTER = (endpoint: string) => ({
  jsonrpc: "2.0",
  method: "tools/register",
  params: { tool: searchTool(endpoint) },
  id: 1,
});
const EXAMPLE_CALL = {
  jsonrpc: "2.0",
  method: "tools/call",
  params: {
    tool_name: "search_tool",
    function_name: "web_search",
    arguments: { query: "artificial intelligence trends 2025", max_results: 3 },
    call_id: "uuid-123-456-789",
    timeout: 10,
  },
  id: 2,
};
const EXAMPLE_HEALTH = {
  jsonrpc: "2.0",
  method: "health/check",
  params: { tool_name: "search_tool" },
  id: 3,
};

describe("the registry endpoint, POST /rpc, with a real tool service", () => {
  let broker: TestBroker;
  let service: ToolService;

  beforeAll(async () => {
    service = await startToolService("healthy");
    // The protocol's examples register search_tool, the name of a predefined tool: those are off here.
    broker = await startBroker({ tree: [], registry: { predefined: false } });
  });
  afterAll(async () => {
    await broker?.close();
    await service?.kill();
  });

  const rpc = (body: unknown) => broker.post("/rpc", body);

  it("answers the protocol's registration with its response shape", async () => {
    const { status, body } = await rpc(EXAMPLE_REGISTER(service.url));
    expect(status).toBe(200);
    expect(body).toEqual({
      jsonrpc: "2.0",
      result: { tool_id: "search_tool_v1", status: "registered", health_check_interval: 60 },
      id: 1,
    });
  });

  it("refuses a definition with a mistyped key, naming the key it likely stands for", async () => {
    const { endpoint, ...rest } = searchTool(service.url);
    const { body } = await rpc({
      ...EXAMPLE_REGISTER(service.url),
      params: { tool: { ...rest, endpont: endpoint } },
    });
    expect(JSON.stringify(body.error)).toContain(
      'Unrecognized key: \\"endpont\\" (did you mean \\"endpoint\\"?)',
    );
  });

  it("registers the same definition again as the same tool_id", async () => {
    const { body } = await rpc(EXAMPLE_REGISTER(service.url));
    expect(body.result.tool_id).toBe("search_tool_v1");
  });

  it("answers the protocol's call with its response shape and forwards the protocol's request", async () => {
    const { body } = await rpc(EXAMPLE_CALL);
    expect(body).toEqual({
      jsonrpc: "2.0",
      result: {
        call_id: "uuid-123-456-789",
        status: "completed",
        data: {
          results: [1, 2, 3].map((i) => ({
            title: `Result ${i} for artificial intelligence trends 2025`,
            url: `https://example.com/${i}`,
            snippet: "About artificial intelligence trends 2025",
          })),
        },
        execution_time_ms: expect.any(Number),
      },
      id: 2,
    });
    const { last } = await service.stats();
    expect(last).toMatchObject({
      tool_name: "search_tool",
      function_name: "web_search",
      arguments: { query: "artificial intelligence trends 2025", max_results: 3 },
      call_id: "uuid-123-456-789",
    });
    expect(last!.timeout).toBeGreaterThan(9);
    expect(last!.timeout).toBeLessThanOrEqual(10);
  });

  it("answers the protocol's health check with its response shape", async () => {
    const { body } = await rpc(EXAMPLE_HEALTH);
    expect(body).toEqual({
      jsonrpc: "2.0",
      result: {
        status: "healthy",
        response_time_ms: expect.any(Number),
        version: "1.0.0",
        capabilities: ["web_search", "echo", "scalar", "fail", "refuse", "busy", "missing"],
        last_error: null,
        tool_id: "search_tool_v1",
        breaker: "closed",
      },
      id: 3,
    });
  });

  it("generates a call_id when the call has none", async () => {
    const { body } = await rpc({
      jsonrpc: "2.0",
      method: "tools/call",
      params: { tool_name: "search_tool", function_name: "scalar", arguments: {} },
      id: "x",
    });
    expect(body.result.call_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.result.data).toBe(42);
  });

  it("puts the registered tool in the tree, callable over MCP and meta_call", async () => {
    const tree = await broker.post("/meta_tree", { path: "/registry/search_tool" });
    expect(tree.body.children.map((c: { path: string }) => c.path)).toContain(
      "/registry/search_tool/web_search",
    );
    const rest = await broker.post("/meta_call", {
      path: "/registry/search_tool/echo",
      args: { a: 1 },
    });
    expect(rest.body.output.structuredContent).toEqual({ a: 1 });
    const client = await connectHttp(broker.url, {}, { path: "/mcp/registry_search_tool" });
    try {
      const result = await client.callTool({ name: "echo", arguments: { b: 2 } });
      expect(JSON.parse(textOf(result))).toEqual({ b: 2 });
    } finally {
      await client.close();
    }
  });
});
