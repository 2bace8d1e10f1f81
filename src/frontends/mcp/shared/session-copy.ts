import type {
  JSONRPCMessage,
  Server,
  TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { postInternally } from "../transport/post-internally.js";
import type { SessionMessage, SharedSessions } from "./shared-sessions.js";

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

/** A subscription change under way: the client's, or one this copy makes to follow it. */
interface SubscriptionChange {
  readonly uri: string;
  readonly subscribe: boolean;
  /** Made by this copy to follow a change the client made elsewhere. */
  readonly following: boolean;
}

/**
 * This instance's copy of a 2025-era session shared through the state store
 * (see SharedSessions), and what it does with the other instances' copies:
 *
 * - a client's answers and notifications, which may concern a call another
 *   copy runs, and a server's notifications for the client's stream, go on
 *   the bus;
 * - resource updates reach the client from the instance holding its stream,
 *   through that instance's own backend connections, and from no other (each
 *   instance a subscribe passed through would send its own, once per
 *   instance): so the copy holding the stream makes every subscription the
 *   client makes anywhere, from the session's record when the stream opens
 *   and from the bus after. An instance lost with the stream loses nothing:
 *   the client opens its stream again elsewhere, and that copy subscribes.
 * - an unsubscribe on any instance is followed by every copy.
 */
export class SessionCopy {
  /** Whether the client's standalone stream (its GET) is open here. */
  private streaming = false;
  /** Counts the streams opened here, so that a closed one's end does not end a newer one. */
  private streams = 0;
  /** The URIs this copy subscribed to, for the client or to follow it. */
  private readonly subscribed = new Set<string>();
  private readonly changes = new Map<string | number, SubscriptionChange>();
  private followed = 0;
  private readonly deliver: (
    message: JSONRPCMessage,
    options?: TransportSendOptions,
  ) => Promise<void>;

  constructor(
    /** The endpoint's path, such as `/mcp`. */
    private readonly endpoint: string,
    server: Server,
    private readonly transport: WebStandardStreamableHTTPServerTransport,
    private readonly shared: SharedSessions,
  ) {
    this.deliver = transport.send.bind(transport);
    // The server calls transport.send as it is when it sends: replaced here, before connect.
    transport.send = (message, options) => this.send(message, options);
    const previous = server.onerror;
    server.onerror = (err) => {
      // An answer came on the bus to every instance; the one that asked took it.
      if (err.message.startsWith("Received a response for an unknown message ID")) return;
      previous?.(err);
    };
  }

  private get id(): string {
    return this.transport.sessionId ?? "";
  }

  /** Notes the subscription changes among a client's POSTed messages, to share them once made. */
  noteRequests(body: unknown): void {
    for (const message of Array.isArray(body) ? body : [body]) {
      const change = subscriptionChange(message);
      if (change) this.changes.set(change.id, { ...change, following: false });
    }
  }

  /**
   * The client opened its stream here (`response` answers its GET): this
   * copy now sends it resource updates, and any other copy holding an older
   * stream of the session closes it.
   */
  openStream(response: Response): Response {
    if (response.status !== 200 || response.body === null) return response;
    const stream = ++this.streams;
    this.streaming = true;
    this.takeSubscriptions().catch((err: Error) =>
      this.shared.log.warn(
        { session: this.id, err: err.message },
        "the session's subscriptions were not taken up with its stream",
      ),
    );
    const body = whileOpen(response.body, () => {
      if (this.streams === stream) this.streaming = false;
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }

  /** A message of this session from the bus. */
  hear(message: SessionMessage): void {
    switch (message.from) {
      case "server":
        this.deliver(message.body as JSONRPCMessage).catch(() => undefined);
        return;
      case "client":
        this.post(message.body).catch(() => undefined);
        return;
      case "stream":
        if (message.origin !== this.shared.instance && this.streaming) {
          this.streaming = false;
          this.transport.closeStandaloneSSEStream();
        }
        return;
      case "subscribe":
      case "unsubscribe": {
        const subscribe = message.from === "subscribe";
        // Only the stream's copy subscribes; every copy unsubscribes.
        if (typeof message.body === "string" && (this.streaming || !subscribe))
          this.follow(message.body, subscribe);
        return;
      }
      case "end":
        return;
    }
  }

  private async takeSubscriptions(): Promise<void> {
    await this.shared.send({ session: this.id, from: "stream" });
    const record = await this.shared.recall(this.id);
    for (const uri of record?.subscriptions ?? []) this.follow(uri, true);
  }

  /** Makes a subscription change here that the client made on another instance. */
  private follow(uri: string, subscribe: boolean): void {
    if (this.subscribed.has(uri) === subscribe) return;
    const id = `mcp-broker:${this.shared.instance}:${++this.followed}`;
    this.changes.set(id, { uri, subscribe, following: true });
    this.post({
      jsonrpc: "2.0",
      id,
      method: subscribe ? "resources/subscribe" : "resources/unsubscribe",
      params: { uri },
    }).catch(() => this.changes.delete(id));
  }

  private post(body: unknown): Promise<void> {
    return postInternally(this.transport, this.endpoint, body, this.id);
  }

  private async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!("method" in message)) {
      const id = "id" in message ? message.id : undefined;
      const change = id === undefined ? undefined : this.changes.get(id);
      if (change) {
        this.changes.delete(id!);
        await this.changed(change, "result" in message);
      }
      return this.deliver(message, options);
    }
    if ("id" in message || options?.relatedRequestId !== undefined)
      return this.deliver(message, options);
    if (message.method === "notifications/resources/updated")
      return this.streaming ? this.deliver(message, options) : undefined;
    if (SENT_BY_EVERY_INSTANCE.has(message.method)) return this.deliver(message, options);
    // A notification for the client's stream, wherever it is; the SDK sends it there.
    await this.shared.send({ session: this.id, from: "server", body: message });
  }

  /**
   * A subscription change was answered: kept in the session's record and
   * told to the other copies (before the client hears the answer, so that a
   * change it causes next is seen by the stream's copy).
   */
  private async changed(change: SubscriptionChange, made: boolean): Promise<void> {
    if (!made) {
      if (change.following)
        this.shared.log.warn(
          { session: this.id, uri: change.uri },
          `a resource ${change.subscribe ? "subscription" : "unsubscription"} made on another instance failed on this one`,
        );
      return;
    }
    if (change.subscribe) this.subscribed.add(change.uri);
    else this.subscribed.delete(change.uri);
    if (change.following) return;
    try {
      await this.shared.changeSubscription(this.id, change.uri, change.subscribe);
      await this.shared.send({
        session: this.id,
        from: change.subscribe ? "subscribe" : "unsubscribe",
        body: change.uri,
      });
    } catch (err) {
      this.shared.log.warn(
        { session: this.id, uri: change.uri, err: (err as Error).message },
        "a resource subscription change was not shared with the other instances",
      );
    }
  }
}

/** A subscribe or unsubscribe request, if `message` is one. */
function subscriptionChange(
  message: unknown,
): { id: string | number; uri: string; subscribe: boolean } | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: unknown };
  if (method !== "resources/subscribe" && method !== "resources/unsubscribe") return undefined;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  if (typeof uri !== "string") return undefined;
  return { id, uri, subscribe: method === "resources/subscribe" };
}

/** `body` as it is, calling `onEnd` once it ends, fails or its reader goes away. */
function whileOpen(
  body: ReadableStream<Uint8Array>,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        onEnd();
        controller.close();
      } catch (err) {
        onEnd();
        controller.error(err);
      }
    },
    cancel(reason) {
      onEnd();
      return reader.cancel(reason);
    },
  });
}
