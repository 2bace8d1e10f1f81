import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** An HTTP server on 127.0.0.1: the URL of its `/mcp`, and how to stop it. */
export interface LoopbackServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `handler` on a free loopback port until closed. */
export async function listenOnLoopback(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
): Promise<LoopbackServer> {
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers one HTTP request with `mcp`, as a stateless Streamable HTTP server does. */
export async function answerWithMcp(
  mcp: McpServer,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on("close", () => void transport.close());
  await mcp.connect(transport);
  await transport.handleRequest(req, res);
}
