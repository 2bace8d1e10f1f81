import { randomUUID } from "node:crypto";
import {
  WebStandardStreamableHTTPServerTransport,
  type Server,
} from "@modelcontextprotocol/server";
import { BrokerError } from "../../../contract/errors.js";
import type { Principal } from "../../../contract/router.js";
import { DirectAnswers } from "./direct-answers.js";
import { SessionEventStore } from "./event-store.js";
import type { OpenSession, SessionBook } from "./session-book.js";
import { postInternally } from "./post-internally.js";
import { SessionCopy } from "../shared/session-copy.js";
import type { SessionMessage, SessionRecord, SharedSessions } from "../shared/shared-sessions.js";

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
 * the same id; each instance's copy of a session (SessionCopy) shares with
 * the others what is not a request, and the client's subscriptions.
 */
export class HttpSessions implements McpHttpEndpoint {
  private readonly records = new Map<string, SessionRecord>();
  /** Each session's copy here, when sessions are shared. */
  private readonly copies = new Map<string, SessionCopy>();
  private readonly adopting = new Map<string, Promise<OpenSession | undefined>>();
  /** Each session's short way for its requests, where it has one (DirectAnswers). */
  private readonly direct = new WeakMap<WebStandardStreamableHTTPServerTransport, DirectAnswers>();
  private readonly stopListening: (() => void) | undefined;

  constructor(
    /** The endpoint's path, such as `/mcp`: its sessions' ids are good there only. */
    private readonly endpoint: string,
    /** A session's server; it reads who calls on every request (`OpenSession.authenticated`). */
    private readonly createServer: (principal: () => Principal) => Server,
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
      session.authenticated(principal);
      const direct = this.direct.get(session.transport);
      const message =
        request.method === "POST"
          ? direct?.takes(request, parsedBody, session.server.getNegotiatedProtocolVersion())
          : undefined;
      if (message) return direct!.answer(request, message);
      const copy = this.copies.get(id);
      if (!this.shared || !copy) return session.transport.handleRequest(request, { parsedBody });
      this.shared.touch(id);
      if (request.method === "POST" && parsedBody !== undefined) {
        if (!holdsRequest(parsedBody)) {
          // An answer or a notification may concern a call another instance runs.
          await this.shared.send({ session: id, from: "client", body: parsedBody });
          return new Response(null, { status: 202 });
        }
        copy.noteRequests(parsedBody);
      }
      const response = await session.transport.handleRequest(request, { parsedBody });
      return request.method === "GET" ? copy.openStream(response) : response;
    }
    if (request.method !== "POST") {
      return jsonRpcError(
        400,
        -32000,
        "missing Mcp-Session-Id header; start a session with an initialize POST",
      );
    }
    const room = this.book.makeRoom(principal.id);
    if (room === "principal-full") {
      return jsonRpcError(
        429,
        -32000,
        `this token has ${this.book.maxPerPrincipal} MCP sessions open (sessions.max_per_principal), each with a request in flight; close one, or retry in a moment`,
        { "retry-after": "1" },
      );
    }
    if (room === "full") {
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
    let current = principal;
    const server = this.createServer(() => current);
    let copy: SessionCopy | undefined;
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: sessionId,
        maxRequestBodySize: this.maxRequestBodySize,
        ...(this.resumable ? { eventStore: new SessionEventStore(), retryInterval: RETRY_MS } : {}),
        onsessioninitialized: (sid) => {
          if (record) this.records.set(sid, record);
          if (copy) this.copies.set(sid, copy);
          this.book.add(
            {
              id: sid,
              endpoint: this.endpoint,
              owner: principal.id,
              authenticated: (now) => (current = now),
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
    // Sessions shared with other instances keep every request on the SDK's
    // way (a copy elsewhere may answer it); resumable ones need its event ids.
    const direct = this.shared || this.resumable ? undefined : new DirectAnswers(transport);
    if (direct) this.direct.set(transport, direct);
    transport.onclose = () => {
      direct?.close();
      if (transport.sessionId !== undefined) this.forget(transport.sessionId);
    };
    if (this.shared) copy = new SessionCopy(this.endpoint, server, transport, this.shared);
    return { server, transport };
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
    const room = this.book.makeRoom(principal.id);
    if (room !== "room") {
      throw new BrokerError(
        room === "principal-full" ? "rate_limited" : "unavailable",
        room === "principal-full"
          ? `this token has ${this.book.maxPerPrincipal} MCP sessions open here (sessions.max_per_principal), each with a request in flight; retry in a moment`
          : `this instance has ${this.book.max} MCP sessions open (sessions.max), each with a request in flight; retry in a moment`,
      );
    }
    const { server, transport } = this.open(principal, () => id, record);
    await server.connect(transport);
    await postInternally(transport, this.endpoint, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: record.initialize,
    });
    await postInternally(
      transport,
      this.endpoint,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      id,
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
    this.copies.get(message.session)?.hear(message);
  }

  private forget(id: string): void {
    this.book.remove(id);
    this.records.delete(id);
    this.copies.delete(id);
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
