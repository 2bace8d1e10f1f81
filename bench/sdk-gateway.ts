/**
 * A gateway of the MCP SDK's parts used as their documentation shows, the
 * parts the broker is built on: the SDK server on Streamable HTTP behind
 * Hono (2025-era sessions, each answer as plain JSON), its `tools/call`
 * relayed by the SDK client to one stdio server, the answer passed on
 * unchecked beyond JSON-RPC. No policy, no tree, no tracing, no second
 * revision: what those parts cost a call before anything is added, beside
 * bench/floor-gateway.ts (what any Node gateway costs at least).
 * Prints its port on stdout. `node sdk-gateway.js COMMAND ARGS…`
 */
import { randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  Server,
  WebStandardStreamableHTTPServerTransport,
  type CallToolResult,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { sessionsApp } from "./sessions-app.js";

const [command, ...args] = process.argv.slice(2);
const backend = new Client({ name: "sdk-gateway", version: "1" });
await backend.connect(new StdioClientTransport({ command: command!, args, stderr: "inherit" }));
const { tools } = await backend.listTools();
const Relayed = z.looseObject({});

function createServer(): Server {
  const server = new Server({ name: "sdk-gateway", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({ tools }));
  server.setRequestHandler(
    "tools/call",
    (request, ctx) =>
      backend.request({ method: "tools/call", params: request.params }, Relayed, {
        signal: ctx.mcpReq.signal,
      }) as Promise<CallToolResult>,
  );
  return server;
}

const app = sessionsApp(async (keep) => {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    enableJsonResponse: true,
    onsessioninitialized: keep,
  });
  await createServer().connect(transport);
  return transport;
});

serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) =>
  console.log(String(info.port)),
);
process.on("SIGINT", () => void backend.close().then(() => process.exit(0)));
