import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/**
 * An MCP server on loopback that, like a real protected one, takes only
 * bearer JWTs of one issuer with its own URL as audience, and says where to
 * get them (RFC 9728). Its `whoami` tool answers with the token's subject;
 * every Authorization header it was sent is kept for the test to read.
 */
export class ProtectedBackend {
  readonly authorizations: (string | undefined)[] = [];
  /** Requests answered 401. */
  refusals = 0;
  url = "";
  private readonly server: Server;

  private constructor(issuer: string) {
    const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`));
    this.server = createServer(async (req, res) => {
      const resourceMetadata = `${this.origin}/.well-known/oauth-protected-resource/mcp`;
      if (req.url === "/.well-known/oauth-protected-resource/mcp") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ resource: this.url, authorization_servers: [issuer] }));
      }
      this.authorizations.push(req.headers.authorization);
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      let subject: string;
      try {
        const { payload } = await jwtVerify(token ?? "", keys, { issuer, audience: this.url });
        subject = String(payload.sub);
      } catch {
        this.refusals += 1;
        res.writeHead(401, {
          "www-authenticate": `Bearer resource_metadata="${resourceMetadata}"`,
        });
        return res.end();
      }
      const mcp = new McpServer({ name: "protected", version: "1" });
      mcp.registerTool("whoami", { description: "The caller's subject." }, async () => ({
        content: [{ type: "text", text: subject }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    });
  }

  private get origin(): string {
    return new URL(this.url).origin;
  }

  static async start(issuer: string): Promise<ProtectedBackend> {
    const backend = new ProtectedBackend(issuer);
    await new Promise<void>((resolve) => backend.server.listen(0, "127.0.0.1", resolve));
    backend.url = `http://127.0.0.1:${(backend.server.address() as AddressInfo).port}/mcp`;
    return backend;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
