import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";

/**
 * REST's routes and MCP's meta tools parse their requests with one set of
 * schemas: the same request gets the same answer, refusals included.
 */
let broker: TestBroker;
let client: Client;

beforeAll(async () => {
  broker = await startBroker({
    registry: { predefined: false },
    tree: [
      {
        path: "/demo",
        source: {
          backend: "stdio",
          command: everythingCommand(),
          tool_filter: ["echo", "get-sum"],
        },
      },
    ],
  });
  client = await connectHttp(broker.url);
});
afterAll(async () => {
  await client?.close();
  await broker?.close();
});

const requests: [string, Record<string, unknown>][] = [
  ["meta_tree", {}],
  ["meta_tree", { path: "/demo" }],
  ["meta_tree", { path: 5 }],
  ["meta_tree", { path: "demo" }],
  ["meta_tree", { path: "/", depth: 2 }],
  ["meta_desc", {}],
  ["meta_desc", { path: "/demo/echo" }],
  ["meta_desc", { path: "/nope" }],
  ["meta_search", { query: "add two numbers", limit: 1 }],
  ["meta_search", { query: "" }],
  ["meta_search", { query: "sum", limit: 0 }],
  ["meta_search", { query: "sum", limt: 3 }],
  ["meta_call", { path: "/demo/get-sum", args: { a: 1, b: 2 } }],
  ["meta_call", { path: "/demo/get-sum", args: [1] }],
  ["meta_call", { path: "/demo/get-sum", args: { a: "x" } }],
];

describe("one meta API", () => {
  it.each(requests)("%s %j answers alike over REST and MCP", async (tool, args) => {
    const rest = await broker.post(`/${tool}`, args);
    const mcp = await client.callTool({ name: tool, arguments: args });
    expect(mcp.isError === true).toBe(rest.status >= 400);
    if (tool === "meta_call" && rest.status < 400) {
      expect(mcp.content).toEqual((rest.body as { output: { content: unknown } }).output.content);
      return;
    }
    const answer = JSON.parse(textOf(mcp)) as Record<string, unknown>;
    if (rest.status >= 400) expect(answer.error).toEqual((rest.body as { error: unknown }).error);
    else expect(answer).toEqual(rest.body);
  });
});
