import type { Logger } from "../../../contract/log.js";
import type { Principal } from "../../../contract/router.js";
import type { SharedStore } from "../../../state/store.js";

const CHANNEL = "mcp-broker:sse";

/** A message a client posted for a stream another instance holds, and who posted it. */
interface PostedMessage {
  readonly stream: string;
  readonly body: unknown;
  /** As the posting instance authenticated it: the holder serves it with these scopes. */
  readonly principal: Principal;
}

/**
 * Legacy SSE streams (2024-11-05) known to every broker instance of one state
 * store, so that a client's POST to `/messages` may reach any instance: the
 * stream's owner is in the store while the stream is open, and a message for
 * a stream held elsewhere goes on the store's bus to the instance holding it,
 * which answers on the stream. A stream itself cannot move: if its instance
 * is lost, the client opens a new one, as the transport always required.
 */
export class SharedSseStreams {
  /** The streams open here, with their owners, whose records this instance keeps alive. */
  private readonly held = new Map<string, string>();
  private readonly refresher: NodeJS.Timeout;

  constructor(
    private readonly store: SharedStore,
    /** How long a record outlives the instance that held its stream. */
    private readonly ttlMs: number,
    private readonly log: Logger,
  ) {
    this.refresher = setInterval(() => this.refresh(), Math.max(1000, ttlMs / 4));
    this.refresher.unref();
  }

  async opened(stream: string, owner: string): Promise<void> {
    this.held.set(stream, owner);
    await this.store.set(key(stream), owner, this.ttlMs);
  }

  closed(stream: string): void {
    this.held.delete(stream);
    this.store
      .delete(key(stream))
      .catch((err: Error) =>
        this.log.warn({ stream, err: err.message }, "a closed SSE stream's record stays"),
      );
  }

  /** The token id that opened `stream`, if any instance holds it. */
  owner(stream: string): Promise<string | undefined> {
    return this.store.get(key(stream));
  }

  /** Sends a posted message to the instance holding its stream. */
  async relay(stream: string, body: unknown, principal: Principal): Promise<void> {
    await this.store.bus.publish(
      CHANNEL,
      JSON.stringify({ stream, body, principal } satisfies PostedMessage),
    );
  }

  /** Hears the messages posted for streams this instance holds; returns the unsubscribe function. */
  listen(listener: (stream: string, body: unknown, principal: Principal) => void): () => void {
    const unsubscribe = this.store.bus.subscribe(CHANNEL, (text) => {
      try {
        const { stream, body, principal } = JSON.parse(text) as PostedMessage;
        if (this.held.has(stream)) listener(stream, body, principal);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, "a relayed SSE message could not be read");
      }
    });
    return () => {
      clearInterval(this.refresher);
      unsubscribe();
    };
  }

  private refresh(): void {
    for (const [stream, owner] of this.held)
      this.store
        .set(key(stream), owner, this.ttlMs)
        .catch((err: Error) =>
          this.log.warn({ stream, err: err.message }, "an SSE stream's record was not refreshed"),
        );
  }
}

function key(stream: string): string {
  return `mcp-sse:${stream}`;
}
