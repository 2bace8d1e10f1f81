import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { BrokerError } from "../../contract/errors.js";
import type { Principal } from "../../contract/router.js";
import { SessionEventStore } from "./event-store.js";

/** What clients are told to wait before they reconnect a broken stream. */
const RETRY_MS = 1000;

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** A session belongs to the token that opened it. */
  readonly owner: string;
}

/** One MCP endpoint over Streamable HTTP, with sessions or without. */
export interface McpHttpEndpoint {
  /** Serves one request of an authenticated caller. */
  handle(request: Request, principal: Principal): Promise<Response>;
  /** Ends every session. */
  closeAll(): Promise<void>;
}

/**
 * Streamable HTTP sessions of one MCP endpoint: an `initialize` without
 * `Mcp-Session-Id` opens a session with its own server; later requests are
 * routed by that header; `DELETE` or a closed transport ends it.
 */
export class HttpSessions implements McpHttpEndpoint {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly createServer: (principal: Principal) => Server,
    private readonly maxRequestBodySize: number,
  ) {}

  async handle(request: Request, principal: Principal): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.sessions.get(id);
      if (!session) return sessionNotFound(id);
      if (session.owner !== principal.id) {
        throw new BrokerError(
          "forbidden",
          `session ${id} belongs to another token; start your own with an initialize POST`,
        );
      }
      return session.transport.handleRequest(request);
    }
    if (request.method !== "POST") {
      return jsonRpcError(
        400,
        -32000,
        "missing Mcp-Session-Id header; start a session with an initialize POST",
      );
    }
    const server = this.createServer(principal);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: this.maxRequestBodySize,
      eventStore: new SessionEventStore(),
      retryInterval: RETRY_MS,
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, { transport, server, owner: principal.id });
      },
      onsessionclosed: (sid) => {
        this.sessions.delete(sid);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  get size(): number {
    return this.sessions.size;
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.server.close().catch(() => undefined)));
  }
}

function sessionNotFound(id: string): Response {
  return jsonRpcError(
    404,
    -32001,
    `session ${id} not found (it ended or the broker restarted); send a new initialize`,
  );
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}
