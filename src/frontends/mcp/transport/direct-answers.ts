import {
  isJSONRPCRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  type WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/** How often a streamed answer says it is alive, as the SDK's own streams do. */
const KEEP_ALIVE_MS = 15_000;

const encoder = new TextEncoder();

const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
};

/**
 * The short way for a request of an open 2025-era session: the request goes
 * straight to the session's protocol (the SDK server, with all its checks
 * and handlers), and what the protocol sends about it is caught on its way
 * to the transport. An answer that comes first goes back as plain JSON, as
 * Streamable HTTP allows; a notification or a request to the client that
 * comes first turns the answer into an SSE stream that carries them and then
 * the answer, as the SDK's transport would. What this leaves out is the
 * transport's work per POST: a second check of the message, a stream set up
 * and torn down for every call, and its piping into Node's response.
 *
 * Taken only where the transport itself would add nothing: a session without
 * resumable streams (those need the event store's ids) whose client sent one
 * well-formed request it accepts either answer for; everything else goes
 * the SDK's way.
 */
export class DirectAnswers {
  private readonly waiting = new Map<RequestId, Exchange>();

  constructor(private readonly transport: WebStandardStreamableHTTPServerTransport) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const id =
        "method" in message ? options?.relatedRequestId : (message as { id?: RequestId }).id;
      const exchange = id === undefined ? undefined : this.waiting.get(id);
      if (exchange === undefined) return send(message, options);
      if (exchange.carry(message)) this.waiting.delete(id!);
      return Promise.resolve();
    };
  }

  /**
   * The request a POST holds, if this can answer it: one JSON-RPC request
   * (not an `initialize`, not a batch), from a client that accepts both
   * answers, in the session's own protocol version, with an id not already
   * waiting for its answer.
   */
  takes(
    request: Request,
    body: unknown,
    negotiated: string | undefined,
  ): JSONRPCRequest | undefined {
    if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
    const accept = request.headers.get("accept");
    if (!accept?.includes("application/json") || !accept.includes("text/event-stream"))
      return undefined;
    if (!isJsonContentType(request.headers.get("content-type"))) return undefined;
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && version !== negotiated) return undefined;
    if (!isJSONRPCRequest(body) || body.method === "initialize" || this.waiting.has(body.id))
      return undefined;
    return body;
  }

  /** Hands `message` to the session's protocol; resolves with the answer's HTTP response. */
  answer(request: Request, message: JSONRPCRequest): Promise<Response> {
    const exchange = new Exchange(this.transport.sessionId);
    this.waiting.set(message.id, exchange);
    // A client gone before its answer leaves nothing waiting here (the call
    // itself goes on, as on the SDK's streams: cancelling is a message of its own).
    request.signal.addEventListener("abort", () => {
      if (this.waiting.get(message.id) === exchange) this.waiting.delete(message.id);
      exchange.end();
    });
    this.transport.onmessage?.(message, { request });
    return exchange.response;
  }

  /** The session ended: every answer still waited for ends, as the SDK's streams do. */
  close(): void {
    for (const exchange of this.waiting.values()) exchange.end();
    this.waiting.clear();
  }
}

/** One request's way back: plain JSON until something other than its answer must travel first. */
class Exchange {
  readonly response: Promise<Response>;
  private readonly settle: (response: Response) => void;
  private stream:
    { controller: ReadableStreamDefaultController<Uint8Array>; timer: NodeJS.Timeout } | undefined;
  private ended = false;

  constructor(private readonly sessionId: string | undefined) {
    const { promise, resolve } = Promise.withResolvers<Response>();
    this.response = promise;
    this.settle = resolve;
  }

  /** Carries one message about the request; true once that was its answer. */
  carry(message: JSONRPCMessage): boolean {
    const isAnswer = !("method" in message);
    if (this.ended) return isAnswer;
    if (isAnswer && this.stream === undefined) {
      this.ended = true;
      this.settle(
        new Response(JSON.stringify(message), {
          status: 200,
          headers: this.headers("application/json"),
        }),
      );
      return true;
    }
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (isAnswer) this.end();
    return isAnswer;
  }

  /** Ends the answer: an open stream closes, one never started closes at once. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.stream === undefined) {
      this.settle(new Response(null, { status: 200, headers: this.headers() }));
      return;
    }
    clearInterval(this.stream.timer);
    try {
      this.stream.controller.close();
    } catch {
      // The client went away first.
    }
  }

  private write(frame: string): void {
    this.stream ??= this.open();
    try {
      this.stream.controller.enqueue(encoder.encode(frame));
    } catch {
      // The client went away; the answer has nowhere to go.
    }
  }

  private open(): NonNullable<Exchange["stream"]> {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => (controller = c),
      cancel: () => this.end(),
    });
    const timer = setInterval(() => this.write(": keepalive\n\n"), KEEP_ALIVE_MS);
    timer.unref();
    this.settle(new Response(body, { status: 200, headers: this.headers() }));
    return { controller, timer };
  }

  private headers(contentType?: string): Record<string, string> {
    const headers: Record<string, string> = contentType
      ? { "Content-Type": contentType }
      : { ...SSE_HEADERS };
    if (this.sessionId !== undefined) headers["mcp-session-id"] = this.sessionId;
    return headers;
  }
}
