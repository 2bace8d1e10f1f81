/**
 * The example component's `word_count` as a stdio MCP server with the SDK:
 * the same tool, the same code, the other way of shipping it.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "text-tools", version: "1.0.0" });
server.registerTool(
  "word_count",
  {
    description: "Counts the words, lines and characters of a text.",
    inputSchema: { text: z.string() },
  },
  async ({ text }) => {
    const words = text.split(/\s+/).filter(Boolean).length;
    const lines = text === "" ? 0 : text.split("\n").length;
    const counts = { words, lines, characters: [...text].length };
    return { content: [{ type: "text", text: JSON.stringify(counts) }] };
  },
);
await server.connect(new StdioServerTransport());
