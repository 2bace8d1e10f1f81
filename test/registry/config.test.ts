import { afterEach, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { searchTool, startToolService, type ToolService } from "../helpers/tool-service.js";

let broker: TestBroker | undefined;
let service: ToolService | undefined;
afterEach(async () => {
  await broker?.close();
  await service?.kill();
  broker = service = undefined;
});

const register = (b: TestBroker, tool: object) =>
  b.post("/rpc", { jsonrpc: "2.0", method: "tools/register", params: { tool }, id: 1 });

describe("the registry's place in the tree", () => {
  it("refuses a config whose tree already uses the registry's node, saying what to change", async () => {
    await expect(
      startBroker({
        tree: [{ path: "/registry", source: { backend: "stdio", command: fixtureCommand() } }],
      }),
    ).rejects.toThrow(
      "$.registry.mount: /registry is also a node of the tree; set registry.mount to a path the tree does not use",
    );
  });

  it("mounts registered tools where registry.mount says, and shows no node before the first", async () => {
    service = await startToolService("healthy");
    broker = await startBroker({
      tree: [],
      registry: { mount: "/services/registered", predefined: false },
    });
    expect((await broker.post("/meta_tree", { path: "/" })).body.children).toEqual([]);
    await register(broker, searchTool(service.url));
    const out = await broker.post("/meta_call", {
      path: "/services/registered/search_tool/echo",
      args: { via: "rest" },
    });
    expect(out.body.output.structuredContent).toEqual({ via: "rest" });
  });

  it("refuses a registration whose source name is taken in the config", async () => {
    service = await startToolService("healthy");
    broker = await startBroker({
      registry: { predefined: false },
      tree: [
        {
          path: "/fx",
          source: { backend: "stdio", command: fixtureCommand(), name: "registry_search_tool" },
        },
      ],
    });
    const { body } = await register(broker, searchTool(service.url));
    expect(body.error).toMatchObject({ code: -32004 });
    expect(body.error.data.details).toContain("cannot be mounted in the tree");
    expect(body.error.data.details).toContain('"registry_search_tool"');
  });

  it("answers a spent rate limit with 429 on REST, as -32007 on /rpc", async () => {
    service = await startToolService("healthy");
    broker = await startBroker({
      tree: [],
      registry: { predefined: false },
      rate_limits: [{ token: "*", path: "/registry/**", per_minute: 1, burst: 2 }],
    });
    // The registration takes a token too.
    await register(broker, searchTool(service.url));
    const call = () => broker!.post("/meta_call", { path: "/registry/search_tool/echo", args: {} });
    expect((await call()).status).toBe(200);
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(refused.body.error.kind).toBe("rate_limited");
  });

  it("counts every method and every member of a batch; health checks at once cost the service one", async () => {
    service = await startToolService("healthy");
    broker = await startBroker({
      tree: [],
      registry: { predefined: false },
      rate_limits: [{ token: "*", path: "/registry/**", per_minute: 1, burst: 11 }],
    });
    await register(broker, searchTool(service.url));
    const before = (await service.stats()).checks;
    const batch = Array.from({ length: 40 }, (_, id) => ({
      jsonrpc: "2.0",
      id,
      method: "health/check",
      params: { tool_name: "search_tool" },
    }));
    const answers = (await broker.post("/rpc", batch)).body as any[];
    const answered = answers.filter((a) => a.result !== undefined);
    expect(answered).toHaveLength(10);
    expect(answers.filter((a) => a.error?.code === -32007)).toHaveLength(30);
    expect((await service.stats()).checks - before).toBeLessThanOrEqual(2);
    const listed = await broker.post("/rpc", { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(listed.body.error).toMatchObject({ code: -32007 });
  });

  it("names the allowed_hosts entries that are not addresses", async () => {
    await expect(
      startBroker({ tree: [], registry: { allowed_hosts: ["10.0.0.0/33"] } }),
    ).rejects.toThrow(
      '$.registry.allowed_hosts: "10.0.0.0/33" is neither an address nor a network',
    );
  });
});
