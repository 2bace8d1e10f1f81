import type { IncomingMessage, ServerResponse } from "node:http";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { answerWithMcp, listenOnLoopback, type LoopbackServer } from "./loopback-mcp.js";

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
  private server: LoopbackServer | undefined;
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;

  private constructor(private readonly issuer: string) {
    this.keys = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  }

  get url(): string {
    return this.server!.url;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const resourceMetadata = `${new URL(this.url).origin}/.well-known/oauth-protected-resource/mcp`;
    if (req.url === "/.well-known/oauth-protected-resource/mcp") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ resource: this.url, authorization_servers: [this.issuer] }));
      return;
    }
    this.authorizations.push(req.headers.authorization);
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    let subject: string;
    try {
      const { payload } = await jwtVerify(token ?? "", this.keys, {
        issuer: this.issuer,
        audience: this.url,
      });
      subject = String(payload.sub);
    } catch {
      this.refusals += 1;
      res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${resourceMetadata}"` });
      res.end();
      return;
    }
    const mcp = new McpServer({ name: "protected", version: "1" });
    mcp.registerTool("whoami", { description: "The caller's subject." }, async () => ({
      content: [{ type: "text", text: subject }],
    }));
    await answerWithMcp(mcp, req, res);
  }

  static async start(issuer: string): Promise<ProtectedBackend> {
    const backend = new ProtectedBackend(issuer);
    backend.server = await listenOnLoopback((req, res) => backend.handle(req, res));
    return backend;
  }

  close(): Promise<void> {
    return this.server!.close();
  }
}
