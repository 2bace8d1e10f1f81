import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server, Transport } from "@modelcontextprotocol/server";
import type { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { BrokerError } from "../../../contract/errors.js";
import type { Logger } from "../../../contract/log.js";
import type { Principal } from "../../../contract/router.js";
import type { SharedSseStreams } from "../shared/shared-sse-streams.js";

/** Where the clients of every legacy stream post their messages. */
export const LEGACY_MESSAGES_PATH = "/messages";

interface LegacySession {
  readonly transport: SSEServerTransport;
  readonly server: Server;
  readonly owner: string;
  /** Its owner's principal as a message just authenticated it: its scopes as they are now. */
  authenticated(principal: Principal): void;
}

/**
 * The deprecated HTTP+SSE transport of MCP 2024-11-05, for old clients that
 * speak nothing else: `GET /sse` (or `/sse/<source>`) opens a stream whose
 * first event names `/messages?sessionId=…`; the client POSTs its messages
 * there and the answers come on the stream. Each stream has its own server,
 * as a Streamable HTTP session does, under the same policy; it ends when the
 * client disconnects. The SDK's own transport does the wire work.
 *
 * With `shared` (a Redis state store), a message may be posted to any
 * instance: one whose stream another instance holds goes there on the bus.
 */
export class LegacySse {
  private readonly sessions = new Map<string, LegacySession>();
  private readonly stopListening: (() => void) | undefined;

  constructor(
    private readonly max: number,
    /** Streams one principal may hold open at once. */
    private readonly maxPerPrincipal: number,
    private readonly log: Logger,
    private readonly shared?: SharedSseStreams,
  ) {
    this.stopListening = shared?.listen((stream, body, principal) => {
      const session = this.sessions.get(stream);
      if (session && principal.id === session.owner) session.authenticated(principal);
      session?.transport
        .handleMessage(body)
        .catch((err: Error) =>
          log.warn({ stream, err: err.message }, "a relayed SSE message was not taken"),
        );
    });
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Opens a stream on `outgoing` for `principal`, served by a server of
   * `createServer`, which reads who calls on every message.
   */
  async open(
    outgoing: ServerResponse,
    principal: Principal,
    createServer: (principal: () => Principal) => Server,
  ): Promise<void> {
    // The 1.x SDK (its transport, its schemas, what they use) is loaded by the first stream.
    const { SSEServerTransport } = await import("@modelcontextprotocol/sdk/server/sse.js");
    const held = [...this.sessions.values()].filter((s) => s.owner === principal.id).length;
    if (held >= this.maxPerPrincipal) {
      throw new BrokerError(
        "rate_limited",
        `this token has ${held} legacy SSE streams open (sessions.max_per_principal); close one first`,
      );
    }
    if (this.sessions.size >= this.max) {
      throw new BrokerError(
        "unavailable",
        `the broker has ${this.max} legacy SSE streams open (sessions.max); retry later, or use Streamable HTTP at /mcp`,
      );
    }
    const transport = new SSEServerTransport(LEGACY_MESSAGES_PATH, outgoing);
    const id = transport.sessionId;
    let current = principal;
    const server = createServer(() => current);
    this.sessions.set(id, {
      transport,
      server,
      owner: principal.id,
      authenticated: (now) => (current = now),
    });
    transport.onclose = () => {
      this.sessions.delete(id);
      this.shared?.closed(id);
    };
    // The SDK's transport stops at the response's close; the server with it.
    outgoing.once("close", () => void server.close());
    // The 2024-11-05 transport is the 1.x SDK's; its messages are the same JSON.
    await server.connect(transport as Transport);
    await this.shared
      ?.opened(id, principal.id)
      .catch((err: Error) =>
        this.log.warn(
          { stream: id, err: err.message },
          "an SSE stream is served here only: its record was not written",
        ),
      );
  }

  /** Hands a posted message to its stream's server; the answer goes on the stream. */
  async post(
    sessionId: string | undefined,
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    principal: Principal,
    body: unknown,
  ): Promise<void> {
    const session = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (!session && sessionId !== undefined && this.shared) {
      await this.relay(sessionId, principal, body);
      outgoing.writeHead(202).end("Accepted");
      return;
    }
    if (!session) {
      throw new BrokerError(
        "not_found",
        `no open SSE stream ${sessionId === undefined ? "(the sessionId query parameter is missing)" : `with sessionId ${sessionId}`}; open one with GET /sse`,
      );
    }
    if (session.owner !== principal.id) {
      throw new BrokerError("forbidden", `stream ${sessionId} belongs to another token`);
    }
    // The SDK quotes a message it cannot take in its answer (`${body}`), which throws, with
    // the answer half written, for an object whose own `toString` is not a function.
    await assertOneMessage(body);
    session.authenticated(principal);
    await session.transport.handlePostMessage(incoming, outgoing, body);
  }

  /** Sends a message for a stream another instance holds to it, when there is one. */
  private async relay(sessionId: string, principal: Principal, body: unknown): Promise<void> {
    const owner = await this.shared!.owner(sessionId);
    if (owner === undefined) {
      throw new BrokerError(
        "not_found",
        `no open SSE stream with sessionId ${sessionId}; open one with GET /sse`,
      );
    }
    if (owner !== principal.id) {
      throw new BrokerError("forbidden", `stream ${sessionId} belongs to another token`);
    }
    await assertOneMessage(body);
    await this.shared!.relay(sessionId, body, principal);
  }

  async closeAll(): Promise<void> {
    this.stopListening?.();
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.server.close()));
  }
}

/** Refuses a posted body that is not one JSON-RPC message, in words. */
async function assertOneMessage(body: unknown): Promise<void> {
  const { JSONRPCMessageSchema } = await import("@modelcontextprotocol/sdk/types.js");
  if (!JSONRPCMessageSchema.safeParse(body).success) {
    throw new BrokerError(
      "invalid_params",
      "the body is not one JSON-RPC message; post each message of the stream as one JSON object",
    );
  }
}
