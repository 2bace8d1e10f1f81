import { Hono, type Context } from "hono";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Server, ServerNotifier } from "@modelcontextprotocol/server";
import type { Broker } from "../../broker/broker.js";
import type { ExposeMode } from "../../config/schema.js";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type { Principal } from "../../contract/router.js";
import { declaresLength } from "../http/body-limit/index.js";
import type { AuthEnv } from "../http/token-auth/index.js";
import { createMcpServer } from "./protocol/create-server.js";
import type { Era } from "./protocol/handler-host.js";
import { InputBridge } from "./protocol/input-bridge.js";
import { notifyChanges } from "./protocol/listen-notices.js";
import { createSourceServer } from "./protocol/source-server.js";
import { BridgeRelay } from "./shared/bridge-relay.js";
import { SharedSessions } from "./shared/shared-sessions.js";
import { SharedSseStreams } from "./shared/shared-sse-streams.js";
import { BothRevisions } from "./transport/both-revisions.js";
import { HttpSessions } from "./transport/http-sessions.js";
import { LEGACY_MESSAGES_PATH, LegacySse } from "./transport/legacy-sse.js";
import { nodeBodyText } from "./transport/node-body.js";
import {
  DEFAULT_SESSION_LIMITS,
  SessionBook,
  type SessionLimits,
} from "./transport/session-book.js";
import { StatelessHttp } from "./transport/stateless-http.js";

export interface McpEndpointOptions {
  readonly broker: Broker;
  readonly log: Logger;
  readonly expose: () => ExposeMode;
  /** The largest message taken, in bytes. */
  readonly maxRequestBytes: number;
  /** Endpoints without sessions, for load-balanced instances. */
  readonly stateless?: boolean;
  /** 2025-era sessions keep their stream events for `Last-Event-ID` resumption. */
  readonly resumable?: boolean;
  /** Bounds on the sessions of every endpoint together. */
  readonly sessions?: SessionLimits;
}

export interface McpEndpoints {
  readonly app: Hono<AuthEnv>;
  /** Ends every session, of `/mcp`, of each `/mcp/<name>` and of the SSE streams. */
  close(): Promise<void>;
}

/**
 * MCP over HTTP: the broker at `/mcp` and each source as itself at
 * `/mcp/<name>`, in both revisions (Streamable HTTP of 2025 with sessions,
 * or without them when stateless, and 2026-07-28's requests), and the
 * HTTP+SSE transport of 2024-11-05 at `/sse` and `/sse/<name>` for clients
 * that speak only it. Sessions are shared with other instances when the
 * broker's state store is.
 *
 * @example
 * const mcp = mcpEndpoints({ broker, log, expose: () => "meta", maxRequestBytes: 1 << 20 });
 * app.route("/", mcp.app);
 */
export function mcpEndpoints(options: McpEndpointOptions): McpEndpoints {
  const { broker, log, maxRequestBytes: maxBytes } = options;
  const limits = options.sessions ?? DEFAULT_SESSION_LIMITS;
  const book = new SessionBook(limits, log);
  const store = broker.sharedStore();
  const shared = store && new SharedSessions(store, limits.idleTimeoutMs, log);
  broker.metrics.countSessions("http", () => book.size);
  const bridge = new InputBridge(broker.bridgeKey(), store && new BridgeRelay(store.bus, log));
  /** One MCP URL of both revisions, whose servers `createServer` makes for each. */
  const endpoint = (
    path: string,
    createServer: (principal: () => Principal, era: Era) => Server,
    watch: (notify: ServerNotifier) => () => void,
  ): BothRevisions => {
    return new BothRevisions(
      options.stateless
        ? new StatelessHttp((principal) => createServer(principal, "legacy-request"), maxBytes)
        : new HttpSessions(
            path,
            (principal) => createServer(principal, "legacy"),
            book,
            maxBytes,
            options.resumable === true,
            shared,
          ),
      (principal) => createServer(principal, "modern-request"),
      maxBytes,
      log,
      (notify, renew) => {
        const offNotices = watch(notify);
        // A 2026-07-28 request's server is kept for the next; one made before a
        // reload, a new tool list or a backend's restart would answer as it was then.
        const offRenew = broker.onTreeChange(renew);
        return () => {
          offNotices();
          offRenew();
        };
      },
    );
  };
  const brokerServer = (principal: () => Principal, era: Era) =>
    createMcpServer(broker, { expose: options.expose(), principal, era, bridge });
  const sourceSessions = new Map<string, BothRevisions>();
  const sessions = endpoint("/mcp", brokerServer, (notify) => notifyChanges(broker, notify));
  const legacy = new LegacySse(
    book.max,
    book.maxPerPrincipal,
    log,
    store && new SharedSseStreams(store, limits.idleTimeoutMs, log),
  );
  broker.metrics.countSessions("sse", () => legacy.size);
  /**
   * A POST's body, read once for whichever revision serves it: from Node's
   * stream where its length was declared, else as the body limit buffered
   * it while counting.
   */
  const posted = (c: Context<AuthEnv>) => {
    if (c.req.method !== "POST") return undefined;
    return declaresLength(c) ? nodeBodyText(c.env.incoming, maxBytes) : c.req.raw.text();
  };

  const app = new Hono<AuthEnv>();
  app.all("/mcp", async (c) => sessions.handle(c.req.raw, c.get("principal"), await posted(c)));
  app.get("/sse", async (c) => {
    await legacy.open(c.env.outgoing, c.get("principal"), (principal) =>
      brokerServer(principal, "legacy"),
    );
    return RESPONSE_ALREADY_SENT;
  });
  app.get("/sse/:name", async (c) => {
    const name = broker.source(c.req.param("name"), c.get("principal")).name;
    await legacy.open(c.env.outgoing, c.get("principal"), (principal) =>
      createSourceServer(broker, name, principal, "legacy", bridge),
    );
    return RESPONSE_ALREADY_SENT;
  });
  app.post(LEGACY_MESSAGES_PATH, async (c) => {
    await legacy.post(
      c.req.query("sessionId"),
      c.env.incoming,
      c.env.outgoing,
      c.get("principal"),
      await jsonOf(c.req.raw),
    );
    return RESPONSE_ALREADY_SENT;
  });
  app.all("/mcp/:name", async (c) => {
    const name = c.req.param("name") ?? "";
    if (!broker.knowsSource(name, c.get("principal"))) {
      return c.json(
        {
          jsonrpc: "2.0",
          error: { code: -32001, message: broker.noSourceNamed(name, c.get("principal")) },
          id: null,
        },
        404,
      );
    }
    let perSource = sourceSessions.get(name);
    if (!perSource) {
      perSource = endpoint(
        `/mcp/${name}`,
        (principal, era) => createSourceServer(broker, name, principal, era, bridge),
        (notify) => notifyChanges(broker, notify, name),
      );
      sourceSessions.set(name, perSource);
    }
    return perSource.handle(c.req.raw, c.get("principal"), await posted(c));
  });
  return {
    app,
    async close() {
      book.stop();
      bridge.close();
      await Promise.all([sessions, ...sourceSessions.values(), legacy].map((s) => s.closeAll()));
    },
  };
}

/** A posted body as JSON, or `invalid_params` saying it is not. */
async function jsonOf(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new BrokerError("invalid_params", `the message is not JSON: ${(err as Error).message}`);
  }
}
