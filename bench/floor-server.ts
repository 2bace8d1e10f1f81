/**
 * The floor for any HTTP front end: an MCP SDK server with the same `echo` tool
 * as server-everything, in process, on Streamable HTTP with Hono, stateful
 * sessions like the broker's. Prints its port on stdout.
 */
import { randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { sessionsApp } from "./sessions-app.js";

function createServer(): McpServer {
  const server = new McpServer({ name: "floor", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes back the input string", inputSchema: { message: z.string() } },
    async ({ message }) => ({
      content: [{ type: "text", text: `Echo: ${message}` }],
    }),
  );
  return server;
}

const app = sessionsApp(async (keep) => {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: keep,
  });
  await createServer().connect(transport);
  return transport;
});

serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) =>
  console.log(String(info.port)),
);
