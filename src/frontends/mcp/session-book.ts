import type {
  JSONRPCMessage,
  Server,
  Transport,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Logger } from "../../contract/log.js";
import type { Principal } from "../../contract/router.js";

export interface SessionLimits {
  /** Open sessions at most, over every endpoint. */
  readonly max: number;
  /** A session without a request in flight for this long is closed. */
  readonly idleTimeoutMs: number;
}

/** Defaults that keep a small machine's memory bounded (~25 MB of sessions at most). */
export const DEFAULT_SESSION_LIMITS: SessionLimits = { max: 1000, idleTimeoutMs: 30 * 60_000 };

/** One open MCP session of a Streamable HTTP endpoint. */
export interface OpenSession {
  readonly id: string;
  /** Which endpoint opened it (`/mcp`, `/mcp/<name>`): its id is good there only. */
  readonly endpoint: string;
  /** The token that opened it: it belongs to that token. */
  readonly owner: string;
  /** Its owner's principal as a request of it just authenticated it: its scopes as they are now. */
  authenticated(principal: Principal): void;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastUsed: number;
  /** Requests of its client not yet answered. */
  inFlight: number;
}

/**
 * Every open session of every endpoint, least recently used first, bounded by
 * `max` and by an idle timeout: an idle session past the timeout is closed, and
 * a new session that would pass `max` closes the least recently used idle one
 * first, or is refused when every session is busy. A closed session's client
 * gets 404 on its next request and initializes again, as the protocol says.
 */
export class SessionBook {
  private readonly sessions = new Map<string, OpenSession>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limits: SessionLimits,
    private readonly log: Logger,
  ) {
    const every = Math.max(250, Math.min(limits.idleTimeoutMs / 4, 60_000));
    this.sweeper = setInterval(() => this.closeIdle(), every);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get max(): number {
    return this.limits.max;
  }

  /** The session of an id at an endpoint, now the most recently used; undefined if there is none. */
  use(id: string, endpoint: string): OpenSession | undefined {
    const session = this.sessions.get(id);
    if (session === undefined || session.endpoint !== endpoint) return undefined;
    session.lastUsed = Date.now();
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  /** The session of an id at an endpoint, leaving its place in the order as it is. */
  peek(id: string, endpoint: string): OpenSession | undefined {
    const session = this.sessions.get(id);
    return session?.endpoint === endpoint ? session : undefined;
  }

  /** Room for one more session: true when there is (an idle one may have been closed for it). */
  makeRoom(): boolean {
    if (this.sessions.size < this.limits.max) return true;
    for (const session of this.sessions.values()) {
      if (session.inFlight > 0) continue;
      this.log.info(
        { session: session.id, endpoint: session.endpoint, max: this.limits.max },
        "MCP session closed to make room (sessions.max)",
      );
      this.close(session);
      return true;
    }
    return false;
  }

  /** Keeps a new session, counting its requests in flight as its transport carries them. */
  add(session: OpenSession, transport: Transport): void {
    this.sessions.set(session.id, session);
    const receive = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (isRequest(message)) session.inFlight += 1;
      session.lastUsed = Date.now();
      receive?.(message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (isResponse(message)) session.inFlight = Math.max(0, session.inFlight - 1);
      return send(message, options);
    };
  }

  /** Closes a session of an endpoint if it is open here (it ended on another instance). */
  end(id: string, endpoint: string): void {
    const session = this.peek(id, endpoint);
    if (session) this.close(session);
  }

  /** Forgets a session that ended by itself (DELETE, a closed transport). */
  remove(id: string): void {
    this.sessions.delete(id);
  }

  async closeAll(endpoint?: string): Promise<void> {
    const closing = [...this.sessions.values()].filter(
      (s) => endpoint === undefined || s.endpoint === endpoint,
    );
    for (const s of closing) this.sessions.delete(s.id);
    await Promise.all(closing.map((s) => s.server.close().catch(() => undefined)));
  }

  stop(): void {
    clearInterval(this.sweeper);
  }

  private closeIdle(): void {
    const before = Date.now() - this.limits.idleTimeoutMs;
    for (const session of this.sessions.values()) {
      // Least recently used first: the first one used since `before` ends the sweep.
      if (session.lastUsed > before) break;
      if (session.inFlight > 0) continue;
      this.log.info(
        { session: session.id, endpoint: session.endpoint },
        "idle MCP session closed (sessions.idle_timeout_s)",
      );
      this.close(session);
    }
  }

  private close(session: OpenSession): void {
    this.sessions.delete(session.id);
    void session.server.close().catch(() => undefined);
  }
}

/*
 * The transport has parsed every message it carries: telling a request from a
 * response needs only their keys, not the SDK's validating type guards, which
 * parse each message (a whole result, say) once more on every hop.
 */
function isRequest(message: JSONRPCMessage): boolean {
  return "method" in message && "id" in message;
}

function isResponse(message: JSONRPCMessage): boolean {
  return !("method" in message) && "id" in message;
}
