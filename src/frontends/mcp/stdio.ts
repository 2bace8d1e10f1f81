import type { Readable, Writable } from "node:stream";
import { isJSONRPCRequest, type ClientResult, type Server } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Broker } from "../../broker/broker.js";
import { ALL_SCOPES } from "../../auth/scopes.js";
import type { ExposeMode } from "../../config/schema.js";
import type { Logger } from "../../contract/log.js";
import type { Principal } from "../../contract/router.js";
import type { SoleClient } from "../../contract/sole-client.js";
import { createMcpServer } from "./protocol/create-server.js";
import { RelayedClientResult } from "./protocol/handler-host.js";
import { InputBridge } from "./protocol/input-bridge.js";
import { createSourceServer } from "./protocol/source-server.js";
import { claimsModern } from "./transport/claims-modern.js";

export interface McpStdioOptions {
  readonly broker: Broker;
  readonly log: Logger;
  readonly expose: ExposeMode;
  /** Serve this source as itself instead of the tree. */
  readonly server?: string | undefined;
  /** The client's end of the pipe; the process's stdin and stdout by default. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Told of the client, so that what backends ask outside calls reaches it (the broker's). */
  readonly soleClient?: SoleClient;
}

export interface McpStdio {
  /**
   * Settles once the client has gone: its end of stdin closed, or stdout
   * failed (a client that quit before reading its answer). Nothing more
   * can reach it, so whoever started this should stop.
   */
  readonly gone: Promise<void>;
  close(): Promise<void>;
}

/** Who speaks on stdio: the user who started the process, with every scope. */
const STDIO_PRINCIPAL: Principal = { id: "stdio", scopes: ALL_SCOPES };

/**
 * MCP over stdin and stdout, for desktop clients: the client's first message
 * says its revision (`initialize` opens a 2025-era session, a request with
 * the 2026-07-28 envelope the other).
 *
 * @example
 * const stdio = serveMcpStdio({ broker, log, expose: "meta" });
 * await stdio.gone;
 * await stdio.close();
 */
export function serveMcpStdio(options: McpStdioOptions): McpStdio {
  const { broker, log, server: name } = options;
  const bridge = new InputBridge();
  const wire = new StdioServerTransport(options.stdin, options.stdout);
  const connection = serveStdio(
    ({ era }) => {
      const server =
        name === undefined
          ? createMcpServer(broker, {
              expose: options.expose,
              principal: () => STDIO_PRINCIPAL,
              era,
              bridge,
            })
          : createSourceServer(broker, name, () => STDIO_PRINCIPAL, era, bridge);
      if (options.soleClient) introduce(server, era, options.soleClient);
      return server;
    },
    { transport: wire, onerror: (err) => log.warn({ err }, "MCP stdio error") },
  );
  if (options.soleClient) tellWhenModern(wire, options.soleClient);
  // The transport closes itself when stdin ends or a write to stdout fails, and
  // then pauses stdin, so no "end" would ever come: its close is the signal.
  const servesTheConnection = wire.onclose;
  const gone = new Promise<void>((clientGone) => {
    wire.onclose = () => {
      servesTheConnection?.();
      clientGone();
    };
  });
  return {
    gone,
    async close() {
      await connection.close();
      bridge.close();
    },
  };
}

/**
 * Tells the sole client when its client turns out to speak 2026-07-28: its
 * first request with the revision's envelope other than `server/discover`
 * (a probe a 2025-era client may send before its `initialize`), as the SDK's
 * stdio entry settles a connection's revision. Backends' requests outside
 * calls are then refused at once, rather than after waiting 30 s for a
 * 2025-era handshake that never comes.
 */
function tellWhenModern(wire: StdioServerTransport, soleClient: SoleClient): void {
  const deliver = wire.onmessage;
  wire.onmessage = (message) => {
    if (
      isJSONRPCRequest(message) &&
      message.method !== "server/discover" &&
      claimsModern(message)
    ) {
      soleClient.speaksModern();
      wire.onmessage = deliver;
    }
    deliver?.(message);
  };
}

/**
 * Makes the connection's client the broker's sole client: once its 2025-era
 * handshake is over, backends' requests outside calls are asked of it, and
 * its word that its roots changed reaches them. A 2026-07-28 client is asked
 * nothing outside a call; its server may also be a probe the connection
 * drops for a 2025-era one, so it tells the sole client nothing.
 */
function introduce(server: Server, era: "legacy" | "modern", soleClient: SoleClient): void {
  if (era === "modern") return;
  server.setNotificationHandler("notifications/roots/list_changed", () =>
    soleClient.rootsChanged(),
  );
  const initialized = server.oninitialized;
  server.oninitialized = () => {
    initialized?.();
    soleClient.attach(
      (request, signal) =>
        server.request(request, RelayedClientResult, { signal }) as Promise<ClientResult>,
    );
  };
}
