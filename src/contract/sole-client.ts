import {
  ProtocolError,
  ProtocolErrorCode,
  type ClientResult,
  type ServerRequest,
} from "@modelcontextprotocol/client";

/** How long a backend's request waits for the client to finish its handshake. */
const ATTACH_WAIT_MS = 30_000;

/**
 * Requests outside calls that may wait for the client at once, from every
 * backend together, as many as one call may have its caller asked at once;
 * more are refused, so a backend asking in a loop holds no more than these.
 */
const MAX_AT_ONCE = 8;

/** How the sole client is asked something, once it can be. */
export type AskClient = (request: ServerRequest, signal: AbortSignal) => Promise<ClientResult>;

/**
 * The one client of a broker that serves no other (`mcp-broker stdio`). A
 * backend's request outside any call (roots, most often: servers ask right
 * after they start) has then one client it can be for, as it would if the
 * backend were that client's own server: it goes to that client, and the
 * client's word that its roots changed goes to every backend. A broker that
 * serves many clients has none: such a request is refused there.
 *
 * Sources start before the client connects, so a request waits for the
 * client's 2025-era handshake, at most 30 s. A 2026-07-28 client has no
 * requests outside calls: once the client is known to speak it, requests
 * are refused at once, those waiting too.
 */
export class SoleClient {
  private ask: AskClient | undefined;
  private modern = false;
  private asking = 0;
  private readonly attached = Promise.withResolvers<void>();
  private readonly rootsListeners = new Set<() => void>();

  /** The client finished its handshake and can be asked with `ask`. */
  attach(ask: AskClient): void {
    this.ask = ask;
    this.attached.resolve();
  }

  /** The client speaks 2026-07-28: nothing outside calls can reach it. */
  speaksModern(): void {
    this.modern = true;
    this.attached.resolve();
  }

  /** Asks the client for a backend, once it can be asked. */
  async request(request: ServerRequest, signal: AbortSignal): Promise<ClientResult> {
    if (this.asking >= MAX_AT_ONCE) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `${request.method} refused: ${MAX_AT_ONCE} requests outside calls are already waiting for the client`,
      );
    }
    this.asking++;
    try {
      await this.whenAttached(signal);
      if (this.ask === undefined) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `${request.method} cannot reach the client: ${
            this.modern
              ? "it speaks 2026-07-28, whose clients are asked for input only during a call"
              : `none finished a 2025-era handshake within ${ATTACH_WAIT_MS / 1000} s (a 2026-07-28 client is asked for input only during a call)`
          }`,
        );
      }
      return await this.ask(request, signal);
    } finally {
      this.asking--;
    }
  }

  /** The client said its roots changed. */
  rootsChanged(): void {
    for (const listener of this.rootsListeners) listener();
  }

  /** Calls `listener` whenever the client's roots change; returns the function that stops it. */
  onRootsChanged(listener: () => void): () => void {
    this.rootsListeners.add(listener);
    return () => this.rootsListeners.delete(listener);
  }

  private async whenAttached(signal: AbortSignal): Promise<void> {
    if (this.ask !== undefined || signal.aborted) return;
    const { promise: gaveUp, resolve } = Promise.withResolvers<void>();
    // A wait keeps no process alive: the broker may end while a backend's request waits.
    const timer = setTimeout(resolve, ATTACH_WAIT_MS).unref();
    signal.addEventListener("abort", () => resolve(), { once: true });
    try {
      await Promise.race([this.attached.promise, gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  }
}
