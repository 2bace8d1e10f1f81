import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, Server } from "@modelcontextprotocol/server";
import { CallToolRequestSchema, ListResourcesRequestSchema } from "@modelcontextprotocol/core";
import { describe, expect, it } from "vitest";
import { BrokerError } from "../../../contract/errors.js";
import { capturingLogger } from "../../../../test/helpers/broker.js";
import { handleRequest } from "./handle-request.js";
import { sdkHost, type HandlerHost } from "./handler-host.js";
import { InputBridge } from "./input-bridge.js";

async function serve(register: (host: HandlerHost) => void): Promise<Client> {
  const server = new Server(
    { name: "t", version: "1" },
    { capabilities: { tools: {}, resources: {} } },
  );
  register(sdkHost(server, "legacy", "t", new InputBridge()));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "c", version: "1" });
  await client.connect(b);
  return client;
}

describe("handleRequest", () => {
  it("logs an internal failure with its cause and answers -32603 without it", async () => {
    const { log, lines } = capturingLogger();
    const client = await serve((server) =>
      handleRequest(server, ListResourcesRequestSchema, { log }, async () => {
        throw new TypeError("cannot read /etc/secret-path");
      }),
    );
    const failure = await client.listResources().catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: -32603 });
    expect(JSON.stringify(failure)).not.toContain("secret-path");
    const logged = lines().find((l) => l.msg === "MCP request failed");
    expect(logged).toMatchObject({ method: "resources/list", level: 50 });
    expect(logged.err.message).toBe("cannot read /etc/secret-path");
  });

  it("answers a tool's failure as a result in the mcp profile and as -32602 in the emcp one", async () => {
    const { log } = capturingLogger();
    const failing = async (): Promise<never> => {
      throw new BrokerError("invalid_params", "argument 'id' must be an integer");
    };
    const mcp = await serve((s) => handleRequest(s, CallToolRequestSchema, { log }, failing));
    expect(await mcp.callTool({ name: "x", arguments: {} })).toMatchObject({ isError: true });
    const emcp = await serve((s) =>
      handleRequest(s, CallToolRequestSchema, { log, profile: "emcp" }, failing),
    );
    await expect(emcp.callTool({ name: "x", arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
  });
});
