import { randomUUID } from "node:crypto";
import {
  WebStandardStreamableHTTPServerTransport,
  type JSONRPCMessage,
  type Server,
  type TransportSendOptions,
} from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import type { Principal } from "../../contract/router.js";
import { SessionEventStore } from "./event-store.js";
import type { OpenSession, SessionBook } from "./session-book.js";
import type { SessionMessage, SessionRecord, SharedSessions } from "./shared-sessions.js";

/**
 * Notifications every instance sends of itself (each rebuilds its own tree
 * and catalogs): the instance holding the client's stream sends its own, so
 * they are never relayed, which would repeat them once per instance.
 */
const SENT_BY_EVERY_INSTANCE = new Set([
  "notifications/tools/list_changed",
  "notifications/resources/list_changed",
  "notifications/prompts/list_changed",
]);

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
 *
 * With `shared` (a Redis state store), a session opened on one instance is
 * served by any: an instance that does not hold it takes it up from its
 * record, replaying the client's `initialize` to a server of its own under
 * the same id; a client's answers and notifications, and a server's
 * notifications for the client's stream, go on the bus to the instance they
 * concern.
 */
export class HttpSessions implements McpHttpEndpoint {
  private readonly records = new Map<string, SessionRecord>();
  /** Each session's own sending, for notifications that came on the bus. */
  private readonly delivers = new Map<string, (message: JSONRPCMessage) => Promise<void>>();
  private readonly adopting = new Map<string, Promise<OpenSession | undefined>>();
  private readonly stopListening: (() => void) | undefined;

  constructor(
    /** The endpoint's path, such as `/mcp`: its sessions' ids are good there only. */
    private readonly endpoint: string,
    private readonly createServer: (principal: Principal) => Server,
    private readonly book: SessionBook,
    private readonly maxRequestBodySize: number,
    /** Keep each session's stream events for `Last-Event-ID` resumption (costs every call). */
    private readonly resumable: boolean,
    private readonly shared?: SharedSessions,
  ) {
    this.stopListening = shared?.listen((message) => this.hear(message));
  }

  async handle(request: Request, principal: Principal, parsedBody?: unknown): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.book.use(id, this.endpoint) ?? (await this.takeUp(id, principal));
      if (!session) return sessionNotFound(id);
      if (session.owner !== principal.id) throw foreignSession(id);
      const record = this.records.get(id);
      if (this.shared && record) {
        this.shared.touch(id, record);
        if (request.method === "POST" && parsedBody !== undefined && !holdsRequest(parsedBody)) {
          // An answer or a notification may concern a call another instance runs.
          await this.shared.send({ session: id, from: "client", body: parsedBody });
          return new Response(null, { status: 202 });
        }
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
    const initialize = initializeParams(parsedBody);
    const { server, transport } = this.open(
      principal,
      randomUUID,
      initialize === undefined
        ? undefined
        : { endpoint: this.endpoint, owner: principal.id, initialize },
    );
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    if (transport.sessionId === undefined) await server.close();
    else {
      const record = this.records.get(transport.sessionId);
      if (this.shared && record) await this.shared.remember(transport.sessionId, record);
    }
    return response;
  }

  async closeAll(): Promise<void> {
    this.stopListening?.();
    await this.book.closeAll(this.endpoint);
  }

  /** A server and a transport for one session, kept in the book once initialized. */
  private open(
    principal: Principal,
    sessionId: () => string,
    record: SessionRecord | undefined,
  ): { server: Server; transport: WebStandardStreamableHTTPServerTransport } {
    const server = this.createServer(principal);
    let deliver: ((message: JSONRPCMessage) => Promise<void>) | undefined;
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: sessionId,
        maxRequestBodySize: this.maxRequestBodySize,
        ...(this.resumable ? { eventStore: new SessionEventStore(), retryInterval: RETRY_MS } : {}),
        onsessioninitialized: (sid) => {
          if (record) this.records.set(sid, record);
          if (deliver) this.delivers.set(sid, deliver);
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
        onsessionclosed: (sid) => {
          this.forget(sid);
          void this.shared?.forget(sid).catch(() => undefined);
        },
      });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.forget(transport.sessionId);
    };
    // The server calls transport.send as it is when it sends: wrapped here, before connect.
    if (this.shared) deliver = this.relayStreamNotifications(server, transport);
    return { server, transport };
  }

  /**
   * A notification for the client's stream (a resource update, a log
   * message) goes on the bus, to whichever instance holds the stream; the
   * SDK answers with it there.
   */
  private relayStreamNotifications(
    server: Server,
    transport: WebStandardStreamableHTTPServerTransport,
  ): (message: JSONRPCMessage) => Promise<void> {
    const deliver = transport.send.bind(transport);
    transport.send = async (message: JSONRPCMessage, options?: TransportSendOptions) => {
      const sid = transport.sessionId;
      if (
        sid === undefined ||
        !("method" in message) ||
        "id" in message ||
        options?.relatedRequestId !== undefined ||
        SENT_BY_EVERY_INSTANCE.has(message.method)
      )
        return deliver(message, options);
      await this.shared!.send({ session: sid, from: "server", body: message });
    };
    const previous = server.onerror;
    server.onerror = (err) => {
      // An answer came on the bus to every instance; the one that asked took it.
      if (err.message.startsWith("Received a response for an unknown message ID")) return;
      previous?.(err);
    };
    return deliver;
  }

  /** Takes up a session another instance opened, once however many requests ask at once. */
  private takeUp(id: string, principal: Principal): Promise<OpenSession | undefined> {
    if (!this.shared) return Promise.resolve(undefined);
    let adopting = this.adopting.get(id);
    if (!adopting) {
      adopting = this.adopt(id, principal).finally(() => this.adopting.delete(id));
      this.adopting.set(id, adopting);
    }
    return adopting;
  }

  private async adopt(id: string, principal: Principal): Promise<OpenSession | undefined> {
    const record = await this.shared!.recall(id);
    if (!record || record.endpoint !== this.endpoint) return undefined;
    if (record.owner !== principal.id) throw foreignSession(id);
    if (!this.book.makeRoom()) {
      throw new BrokerError(
        "unavailable",
        `this instance has ${this.book.max} MCP sessions open (sessions.max), each with a request in flight; retry in a moment`,
      );
    }
    const { server, transport } = this.open(principal, () => id, record);
    await server.connect(transport);
    const url = `http://mcp-broker${this.endpoint}`;
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const init = await transport.handleRequest(
      new Request(url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: record.initialize,
        }),
      }),
    );
    await init.text();
    await transport.handleRequest(
      new Request(url, {
        method: "POST",
        headers: { ...headers, "mcp-session-id": id },
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      }),
    );
    return this.book.use(id, this.endpoint);
  }

  /** A session message from the bus, for a session this instance holds. */
  private hear(message: SessionMessage): void {
    const session = this.book.peek(message.session, this.endpoint);
    if (!session) return;
    if (message.from === "end") {
      this.book.end(message.session, this.endpoint);
      return;
    }
    if (message.from === "server") {
      // No stream here (another instance holds it), or it closed: not this instance's to send.
      this.delivers
        .get(message.session)?.(message.body as JSONRPCMessage)
        .catch(() => undefined);
      return;
    }
    session.transport
      .handleRequest(
        new Request(`http://mcp-broker${this.endpoint}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": message.session,
          },
          body: JSON.stringify(message.body),
        }),
      )
      .catch(() => undefined);
  }

  private forget(id: string): void {
    this.book.remove(id);
    this.records.delete(id);
    this.delivers.delete(id);
    this.shared?.release(id);
  }
}

function foreignSession(id: string): BrokerError {
  return new BrokerError(
    "forbidden",
    `session ${id} belongs to another token; start your own with an initialize POST`,
  );
}

/** Whether a POST body holds a request (something the client waits an answer for). */
function holdsRequest(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === "object" && m !== null && "method" in m && "id" in m);
}

/** The params of an `initialize` request, which open a session. */
function initializeParams(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (method !== "initialize" || typeof params !== "object" || params === null) return undefined;
  return params as Record<string, unknown>;
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
