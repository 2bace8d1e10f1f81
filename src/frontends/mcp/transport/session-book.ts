import type {
  JSONRPCMessage,
  Server,
  Transport,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Logger } from "../../../contract/log.js";
import type { Principal } from "../../../contract/router.js";

export interface SessionLimits {
  /** Open sessions at most, over every endpoint. */
  readonly max: number;
  /** A session without a request in flight for this long is closed. */
  readonly idleTimeoutMs: number;
  /** Open sessions of one principal at most; a quarter of `max` unless set (serve.ts sets `max` where no token is asked). */
  readonly maxPerPrincipal?: number | undefined;
}

/** Defaults that keep a small machine's memory bounded (1000 sessions, each with a stream: ~31 MB of heap). */
export const DEFAULT_SESSION_LIMITS: SessionLimits = { max: 1000, idleTimeoutMs: 30 * 60_000 };

/** Whether a new session may open, and if not, whose limit stops it. */
export type Room = "room" | "principal-full" | "full";

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
 * `max`, by `maxPerPrincipal` for each principal, and by an idle timeout. A
 * new session of a principal at its own bound closes that principal's least
 * recently used idle session, or is refused when all of them are busy. A new
 * session that would pass `max` takes room from the principal holding the
 * most: its least recently used idle session, or, if it holds more than its
 * share (`max` over the principals holding sessions) and all are busy, its
 * least recently used one, requests and all. So no principal evicts another's
 * sessions or locks others out by opening many, or by keeping them busy. A
 * closed session's client gets 404 on its next request and initializes again,
 * as the protocol says.
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

  /** Open sessions of one principal at most. */
  get maxPerPrincipal(): number {
    return this.limits.maxPerPrincipal ?? Math.max(1, Math.ceil(this.limits.max / 4));
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

  /** Room for one more session of `owner`: whether there is (another may have been closed for it). */
  makeRoom(owner: string): Room {
    const held = this.byOwner();
    const mine = held.get(owner) ?? [];
    // A principal's own bound, where it is below the broker's (else the broker's rule below holds).
    if (mine.length >= this.maxPerPrincipal && this.maxPerPrincipal < this.limits.max) {
      const idle = mine.find((s) => s.inFlight === 0);
      if (!idle) return "principal-full";
      this.closeForRoom(idle, "sessions.max_per_principal");
      return "room";
    }
    if (this.sessions.size < this.limits.max) return "room";
    held.set(owner, mine);
    // No principal loses a busy session while it holds no more than an even share.
    const share = Math.max(1, Math.floor(this.limits.max / held.size));
    const holders = [...held.values()].sort((a, b) => b.length - a.length);
    for (const theirs of holders) {
      const victim =
        theirs.find((s) => s.inFlight === 0) ?? (theirs.length > share ? theirs[0] : undefined);
      if (victim === undefined) continue;
      this.closeForRoom(victim, "sessions.max");
      return "room";
    }
    return "full";
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

  /** Each principal's sessions, least recently used first. */
  private byOwner(): Map<string, OpenSession[]> {
    const held = new Map<string, OpenSession[]>();
    for (const session of this.sessions.values()) {
      const theirs = held.get(session.owner);
      if (theirs) theirs.push(session);
      else held.set(session.owner, [session]);
    }
    return held;
  }

  private closeForRoom(session: OpenSession, limit: string): void {
    const busy = session.inFlight > 0;
    (busy ? this.log.warn : this.log.info).call(
      this.log,
      { session: session.id, endpoint: session.endpoint, owner: session.owner, limit },
      busy
        ? `MCP session closed with requests in flight to make room: its token holds more than its share (${limit})`
        : `MCP session closed to make room (${limit})`,
    );
    this.close(session);
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
