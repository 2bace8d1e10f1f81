/**
 * The floor for any HTTP front end: an MCP SDK server with the same `echo` tool
 * as server-everything, in process, on Streamable HTTP with Hono, stateful
 * sessions like the broker's. Prints its port on stdout.
 */
import { randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { z } from "zod";

const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

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

const app = new Hono();
app.all("/mcp", async (c) => {
  const id = c.req.header("mcp-session-id");
  const existing = id === undefined ? undefined : sessions.get(id);
  if (existing) return existing.handleRequest(c.req.raw);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (sid) => void sessions.set(sid, transport),
  });
  await createServer().connect(transport);
  return transport.handleRequest(c.req.raw);
});

serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) =>
  console.log(String(info.port)),
);
