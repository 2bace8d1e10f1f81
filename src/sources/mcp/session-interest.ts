import type {
  Client,
  LoggingLevel,
  McpSubscription,
  RequestOptions,
  SubscriptionFilter,
} from "@modelcontextprotocol/client";
import type { Logger } from "../../contract/log.js";
import type { CallContext } from "../../contract/router.js";
import { speaksModern } from "./backend-client.js";
import { withCallerMeta } from "./input-rounds.js";
import { Subscriptions } from "./subscriptions.js";

/**
 * What the broker's sessions asked of one shared backend besides calls: the
 * log level each set and the resources each subscribed to. A 2025-era
 * backend is told with `logging/setLevel` and `resources/subscribe`. A
 * 2026-07-28 backend has neither method: a session's level travels in the
 * `_meta` of each of its requests (so one session's level never changes
 * another's), and the subscribed URIs are named in one `subscriptions/listen`,
 * reopened whenever the set changes.
 */
export class SessionInterest {
  private readonly subscriptions = new Subscriptions();
  private readonly logLevels = new Map<string, LoggingLevel>();
  private listening: McpSubscription | undefined;
  /** Listens are opened one at a time, so the last one opened has every URI. */
  private pendingListen: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: Logger,
    private readonly source: string,
  ) {}

  /** Keeps a session's level where the backend cannot be told; false when it must be told. */
  keepLevel(client: Client | null, session: string, level: LoggingLevel): boolean {
    if (client === null || !speaksModern(client)) return false;
    this.logLevels.set(session, level);
    return true;
  }

  /** What a 2026-07-28 backend hears of the caller and its session in each request. */
  withSessionMeta<P extends { _meta?: Record<string, unknown> }>(
    client: Client,
    ctx: CallContext,
    params: P,
  ): P {
    if (!speaksModern(client)) return params;
    return withCallerMeta(params, ctx, this.logLevels.get(ctx.session ?? ""));
  }

  /** Notes a session's subscription; true when the backend has to be told (the URI's first). */
  add(uri: string, session: string): boolean {
    return this.subscriptions.add(uri, session);
  }

  /** Forgets a session's subscription; true when the backend has to be told (the URI's last). */
  remove(uri: string, session: string): boolean {
    return this.subscriptions.remove(uri, session);
  }

  /** Tells the backend of a URI now watched. */
  subscribe(client: Client, uri: string, options: RequestOptions): Promise<void> {
    return speaksModern(client)
      ? this.listen(client, options)
      : client.subscribeResource({ uri }, options).then(() => undefined);
  }

  /** Tells the backend of a URI nobody watches any more. */
  unsubscribe(client: Client, uri: string, options: RequestOptions): Promise<void> {
    return speaksModern(client)
      ? this.listen(client, options)
      : client.unsubscribeResource({ uri }, options).then(() => undefined);
  }

  /** A session ended: its level is forgotten, and what only it watched is given up. */
  async endSession(client: Client | null, session: string): Promise<void> {
    this.logLevels.delete(session);
    const orphaned = this.subscriptions.removeSession(session);
    if (client === null || orphaned.length === 0) return;
    if (speaksModern(client)) {
      await this.listen(client).catch(() => undefined);
      return;
    }
    for (const uri of orphaned) await client.unsubscribeResource({ uri }).catch(() => undefined);
  }

  /**
   * A new connection is asked again for what sessions still watch: a
   * 2026-07-28 backend in a listen (which also carries the list changes it
   * announces), a 2025-era backend URI by URI.
   */
  async restore(client: Client): Promise<void> {
    if (speaksModern(client)) {
      await this.listen(client).catch((err: Error) =>
        this.log.warn({ source: this.source, err: err.message }, "subscriptions/listen failed"),
      );
      return;
    }
    for (const uri of this.subscriptions.uris()) {
      await client
        .subscribeResource({ uri })
        .catch((err: Error) =>
          this.log.warn({ source: this.source, uri, err: err.message }, "resubscribe failed"),
        );
    }
  }

  async close(): Promise<void> {
    await this.listening?.close().catch(() => undefined);
  }

  /**
   * A 2026-07-28 backend says what changed only on a `subscriptions/listen`
   * stream: one is opened when the source comes up, and again whenever the
   * subscribed resources change, the new one first and then the one before
   * closed (an update may come twice for a moment, none is missed). Where
   * there is nothing to hear of, none stays open.
   */
  private listen(client: Client, options: RequestOptions = {}): Promise<void> {
    const next = this.pendingListen.then(async () => {
      const previous = this.listening;
      const filter = this.listenFilter(client);
      // The listen outlives the request that asked for it: only its acknowledgement is timed.
      this.listening =
        Object.keys(filter).length === 0
          ? undefined
          : await client.listen(filter, { timeout: options.timeout });
      await previous?.close().catch(() => undefined);
    });
    this.pendingListen = next.catch(() => undefined);
    return next;
  }

  /** The lists the backend announces changes of, and the resources sessions subscribed to. */
  private listenFilter(client: Client): SubscriptionFilter {
    const caps = client.getServerCapabilities() ?? {};
    const uris = this.subscriptions.uris();
    return {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
      ...(uris.length > 0 ? { resourceSubscriptions: uris } : {}),
    };
  }
}
