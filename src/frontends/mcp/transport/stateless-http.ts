import {
  WebStandardStreamableHTTPServerTransport,
  type Server,
} from "@modelcontextprotocol/server";
import type { Principal } from "../../../contract/router.js";
import type { McpHttpEndpoint } from "./http-sessions.js";

/**
 * Streamable HTTP without sessions, for several broker instances behind a load
 * balancer: every POST is served by a fresh server and answered with plain
 * JSON, so any instance can take any request. What needs a session is not
 * offered: no `GET` stream, so no list_changed or resource updates, no
 * progress, and no requests from a backend back to the client.
 */
export class StatelessHttp implements McpHttpEndpoint {
  constructor(
    private readonly createServer: (principal: () => Principal) => Server,
    private readonly maxRequestBodySize: number,
  ) {}

  async handle(request: Request, principal: Principal, parsedBody?: unknown): Promise<Response> {
    if (request.method !== "POST") {
      return new Response(
        JSON.stringify({
          jsonrpc: "2.0",
          error: {
            code: -32000,
            message: `${request.method} is not offered: this endpoint is stateless; send each request as a POST`,
          },
          id: null,
        }),
        { status: 405, headers: { "content-type": "application/json", allow: "POST" } },
      );
    }
    const server = this.createServer(() => principal);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: this.maxRequestBodySize,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody });
    } finally {
      await server.close();
    }
  }

  async closeAll(): Promise<void> {}
}
