import { randomUUID } from "node:crypto";
import type { Logger } from "../../../contract/log.js";
import type { SharedStore } from "../../../state/store.js";

/** What another instance needs to serve a session: where it was opened, whose it is, how. */
export interface SessionRecord {
  readonly endpoint: string;
  /** The token id that opened it. */
  readonly owner: string;
  /** The client's `initialize` params, replayed to a new server on another instance. */
  readonly initialize: Record<string, unknown>;
  /** The resource URIs its client subscribed to, as the client wrote them. */
  readonly subscriptions?: readonly string[];
}

/** A message of a session that must reach every instance holding it. */
export interface SessionMessage {
  readonly session: string;
  /**
   * `client`: a client's answers and notifications; `server`: a notification
   * for the client's stream; `end`: the client ended the session (no body);
   * `stream`: the client opened its stream on the sending instance (no body);
   * `subscribe`, `unsubscribe`: the client changed a subscription (the URI).
   */
  readonly from: "client" | "server" | "end" | "stream" | "subscribe" | "unsubscribe";
  readonly body?: unknown;
  /** The instance that sent it. */
  readonly origin: string;
}

/** How many times a subscription change re-reads a record another instance changed meanwhile. */
const CHANGE_ATTEMPTS = 8;

const CHANNEL = "mcp-broker:sessions";

/**
 * 2025-era MCP sessions shared by the broker instances of one state store
 * (Redis): each session's record lives in the store for as long as the
 * session may be idle, so that any instance can take up a session another
 * opened; what is not a request (a client's answer to a sampling request,
 * a cancellation; a server's notification for the client's stream) travels
 * on the store's bus to every instance, and the one it concerns acts on it.
 */
export class SharedSessions {
  /** This instance, as the messages it sends name it. */
  readonly instance = randomUUID();
  private readonly refreshed = new Map<string, number>();

  constructor(
    private readonly store: SharedStore,
    private readonly idleTimeoutMs: number,
    readonly log: Logger,
  ) {}

  async remember(id: string, record: SessionRecord): Promise<void> {
    await this.store.set(key(id), JSON.stringify(record), this.idleTimeoutMs);
    this.refreshed.set(id, Date.now());
  }

  async recall(id: string): Promise<SessionRecord | undefined> {
    const stored = await this.store.get(key(id));
    return stored === undefined ? undefined : (JSON.parse(stored) as SessionRecord);
  }

  /**
   * Keeps a used session's record alive, as it is in the store (another
   * instance may have changed it). Written at most once a quarter of the idle
   * timeout per instance, off the request's path: a session used on any
   * instance stays open everywhere.
   */
  touch(id: string): void {
    const last = this.refreshed.get(id) ?? 0;
    if (Date.now() - last < this.idleTimeoutMs / 4) return;
    this.refreshed.set(id, Date.now());
    this.refresh(id).catch((err: Error) =>
      this.log.warn({ session: id, err: err.message }, "MCP session record not refreshed"),
    );
  }

  /**
   * Adds `uri` to a session's subscriptions, or takes it away: atomically
   * against other instances changing the same record.
   */
  async changeSubscription(id: string, uri: string, subscribed: boolean): Promise<void> {
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      const stored = await this.store.get(key(id));
      if (stored === undefined) return;
      const record = JSON.parse(stored) as SessionRecord;
      const others = (record.subscriptions ?? []).filter((u) => u !== uri);
      const changed = JSON.stringify({
        ...record,
        subscriptions: subscribed ? [...others, uri] : others,
      });
      if (await this.store.compareAndSet(key(id), stored, changed, this.idleTimeoutMs)) return;
    }
    throw new Error(
      `session ${id}'s record kept changing; its subscription to ${uri} was not kept`,
    );
  }

  /** Ends a session everywhere (its client sent DELETE): its record, and its copies on other instances. */
  async forget(id: string): Promise<void> {
    this.refreshed.delete(id);
    await this.store.delete(key(id));
    await this.send({ session: id, from: "end" });
  }

  /** Forgets a session here only (closed on this instance, maybe open on others). */
  release(id: string): void {
    this.refreshed.delete(id);
  }

  private async refresh(id: string): Promise<void> {
    const stored = await this.store.get(key(id));
    // Unchanged it is rewritten with a new lifetime; changed, its writer gave it one.
    if (stored !== undefined)
      await this.store.compareAndSet(key(id), stored, stored, this.idleTimeoutMs);
  }

  /** Sends a message to every instance, this one included, as this instance's. */
  async send(message: Omit<SessionMessage, "origin">): Promise<void> {
    await this.store.bus.publish(CHANNEL, JSON.stringify({ ...message, origin: this.instance }));
  }

  /** Hears every session message of every instance; returns the unsubscribe function. */
  listen(listener: (message: SessionMessage) => void): () => void {
    return this.store.bus.subscribe(CHANNEL, (text) => {
      try {
        listener(JSON.parse(text) as SessionMessage);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, "a session message could not be read");
      }
    });
  }
}

function key(id: string): string {
  return `mcp-session:${id}`;
}
