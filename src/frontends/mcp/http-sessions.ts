import { randomUUID } from "node:crypto";
import {
  WebStandardStreamableHTTPServerTransport,
  type Server,
} from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import type { Principal } from "../../contract/router.js";
import { SessionEventStore } from "./event-store.js";
import type { SessionBook } from "./session-book.js";

/** What clients are told to wait before they reconnect a broken stream. */
const RETRY_MS = 1000;

/** One MCP endpoint over Streamable HTTP, with sessions or without. */
export interface McpHttpEndpoint {
  /**
   * Serves one request of an authenticated caller; `parsedBody` is its body
   * when it was read already.
   */
  handle(request: Request, principal: Principal, parsedBody?: unknown): Promise<Response>;
  /** Ends every session. */
  closeAll(): Promise<void>;
}

/**
 * Streamable HTTP sessions of one MCP endpoint: an `initialize` without
 * `Mcp-Session-Id` opens a session with its own server; later requests are
 * routed by that header; `DELETE`, a closed transport, the idle timeout or
 * the need for room (the shared SessionBook) ends it.
 */
export class HttpSessions implements McpHttpEndpoint {
  constructor(
    /** The endpoint's path, such as `/mcp`: its sessions' ids are good there only. */
    private readonly endpoint: string,
    private readonly createServer: (principal: Principal) => Server,
    private readonly book: SessionBook,
    private readonly maxRequestBodySize: number,
    /** Keep each session's stream events for `Last-Event-ID` resumption (costs every call). */
    private readonly resumable: boolean,
  ) {}

  async handle(request: Request, principal: Principal, parsedBody?: unknown): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.book.use(id, this.endpoint);
      if (!session) return sessionNotFound(id);
      if (session.owner !== principal.id) {
        throw new BrokerError(
          "forbidden",
          `session ${id} belongs to another token; start your own with an initialize POST`,
        );
      }
      return session.transport.handleRequest(request, { parsedBody });
    }
    if (request.method !== "POST") {
      return jsonRpcError(
        400,
        -32000,
        "missing Mcp-Session-Id header; start a session with an initialize POST",
      );
    }
    if (!this.book.makeRoom()) {
      return jsonRpcError(
        503,
        -32000,
        `the broker has ${this.book.max} MCP sessions open (sessions.max), each with a request in flight; retry in a moment, or raise sessions.max`,
        { "retry-after": "1" },
      );
    }
    const server = this.createServer(principal);
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        maxRequestBodySize: this.maxRequestBodySize,
        ...(this.resumable ? { eventStore: new SessionEventStore(), retryInterval: RETRY_MS } : {}),
        onsessioninitialized: (sid) => {
          this.book.add(
            {
              id: sid,
              endpoint: this.endpoint,
              owner: principal.id,
              server,
              transport,
              lastUsed: Date.now(),
              inFlight: 0,
            },
            transport,
          );
        },
        onsessionclosed: (sid) => this.book.remove(sid),
      });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.book.remove(transport.sessionId);
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  async closeAll(): Promise<void> {
    await this.book.closeAll(this.endpoint);
  }
}

function sessionNotFound(id: string): Response {
  return jsonRpcError(
    404,
    -32001,
    `session ${id} not found (it ended or the broker restarted); send a new initialize`,
  );
}

function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
