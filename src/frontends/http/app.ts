import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Broker } from "../../broker/broker.js";
import { asBrokerError, BrokerError, HTTP_STATUS } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type { Principal } from "../../contract/router.js";
import type { ExposeMode, ScopeAction } from "../../config/schema.js";
import { createMcpServer } from "../mcp/create-server.js";
import { HttpSessions } from "../mcp/http-sessions.js";
import { DEFAULT_SESSION_LIMITS, SessionBook, type SessionLimits } from "../mcp/session-book.js";
import { StatelessHttp } from "../mcp/stateless-http.js";
import { SharedSessions } from "../mcp/shared-sessions.js";
import type { Server, ServerNotifier } from "@modelcontextprotocol/server";
import { BothRevisions } from "../mcp/both-revisions.js";
import type { Era } from "../mcp/handler-host.js";
import { InputBridge } from "../mcp/input-bridge.js";
import { BridgeRelay } from "../mcp/bridge-relay.js";
import { notifyChanges } from "../mcp/listen-notices.js";
import { LEGACY_MESSAGES_PATH, LegacySse } from "../mcp/legacy-sse.js";
import { needsAdmin } from "./needs-admin.js";
import { consoleApi } from "../console/console-api.js";
import { consoleAssets } from "../console/console-assets.js";
import { SharedSseStreams } from "../mcp/shared-sse-streams.js";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { createSourceServer } from "../mcp/source-server.js";
import { metaRoutes } from "../rest/meta-routes.js";
import { rpcRoutes } from "../rpc/rpc-route.js";

import type { Credentials } from "../../auth/credentials.js";
import { ProtectedResource, RESOURCE_METADATA_PATH } from "../../auth/oauth/protected-resource.js";
import { tokenAuth, type AuthEnv } from "./token-auth/index.js";
import { hostGuard, type HostGuardOptions } from "./host-guard/index.js";
import { traceContext } from "./trace-context/index.js";
import { bodyLimit, declaresLength } from "./body-limit/index.js";
import { nodeBodyText } from "./node-body.js";

export const DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;

export interface HttpAppOptions {
  readonly broker: Broker;
  readonly log: Logger;
  readonly expose: () => ExposeMode;
  /** The tokens callers must present on every endpoint but `/healthz`; none: nothing asked. */
  readonly credentials: () => Credentials;
  readonly maxRequestBytes?: number;
  /** MCP endpoints without sessions, for load-balanced instances. */
  readonly stateless?: boolean;
  /** 2025-era sessions keep their stream events for `Last-Event-ID` resumption. */
  readonly resumable?: boolean;
  /** DNS-rebinding defence for every endpoint but `/healthz`. */
  readonly hosts?: HostGuardOptions;
  /** Bounds on the MCP sessions of every endpoint together. */
  readonly sessions?: SessionLimits;
}

export interface HttpApp {
  readonly app: Hono<AuthEnv>;
  /** Ends every MCP session, of `/mcp` and of each `/mcp/<name>`. */
  closeSessions(): Promise<void>;
}

/** The broker's HTTP surface: `/healthz`, the REST meta API and MCP at `/mcp`. */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { broker, log } = options;
  const maxBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
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
    const legacyServer = (principal: () => Principal) => createServer(principal, "legacy");
    return new BothRevisions(
      options.stateless
        ? new StatelessHttp(legacyServer, maxBytes)
        : new HttpSessions(path, legacyServer, book, maxBytes, options.resumable === true, shared),
      (principal) => createServer(principal, "modern-request"),
      maxBytes,
      log,
      watch,
    );
  };
  const brokerServer = (principal: () => Principal, era: Era) =>
    createMcpServer(broker, { expose: options.expose(), principal, era, bridge });
  const sourceSessions = new Map<string, BothRevisions>();
  const sessions = endpoint("/mcp", brokerServer, (notify) => notifyChanges(broker, notify));
  const app = new Hono<AuthEnv>();
  const legacy = new LegacySse(
    book.max,
    book.maxPerPrincipal,
    log,
    store && new SharedSseStreams(store, limits.idleTimeoutMs, log),
  );
  broker.metrics.countSessions("sse", () => legacy.size);

  app.onError((err, c) => {
    // Hono's own middleware (bearerAuth) throws its finished response.
    if (err instanceof HTTPException) return err.getResponse();
    const e = asBrokerError(err);
    if (e.kind === "internal") log.error({ err, path: c.req.path }, "request failed");
    // The rest of an oversized body is never read, so the connection cannot be reused.
    if (e.kind === "too_large") c.header("Connection", "close");
    if (e.kind === "rate_limited") c.header("Retry-After", String(e.details?.retry_after_s ?? 1));
    const oauth = options.credentials().oauth;
    const scope = e.details?.scope;
    if (e.kind === "forbidden" && oauth && typeof scope === "string") {
      // A step-up challenge: the client may ask the authorization server for these scopes.
      const at = scope.indexOf(":");
      c.header(
        "WWW-Authenticate",
        oauth.resource.stepUp(
          new URL(c.req.url).origin,
          c.req.path,
          scope.slice(0, at) as ScopeAction,
          scope.slice(at + 1),
        ),
      );
    }
    return c.json({ error: e.toJSON() }, HTTP_STATUS[e.kind]);
  });
  // The protected resource metadata (RFC 9728) is for anyone: it says where to get a token.
  const resourceMetadata = (c: Context<AuthEnv>) => {
    const oauth = options.credentials().oauth;
    const path = c.req.path.slice(RESOURCE_METADATA_PATH.length);
    if (!oauth || (path !== "" && ProtectedResource.pathOf(path) === "")) {
      throw new BrokerError(
        "not_found",
        oauth
          ? `no protected resource ${path}: the resources are the broker (${RESOURCE_METADATA_PATH}) and its MCP endpoints (${RESOURCE_METADATA_PATH}/mcp, …/mcp/<source>)`
          : "this broker takes no OAuth tokens (auth.oauth is not configured)",
      );
    }
    c.header("Cache-Control", "max-age=300");
    c.header("Access-Control-Allow-Origin", "*");
    return c.json(oauth.resource.metadata(new URL(c.req.url).origin, path));
  };
  app.notFound((c) =>
    c.json(
      {
        error: {
          kind: "not_found",
          message: `no endpoint ${c.req.method} ${c.req.path}; the endpoints are GET / (the console), POST /meta_tree, /meta_desc, /meta_search, /meta_call, /rpc, /mcp, /mcp/<source>, GET /sse, /sse/<source> and GET /healthz`,
        },
      },
      404,
    ),
  );

  // Load balancers probe /healthz with whatever Host and no token: it says up or down and
  // nothing else. Asked with credentials (or `?details`), it passes the guards below and
  // shows each source's state to an admin.
  app.get("/healthz", async (c, next) => {
    if (c.req.header("authorization") !== undefined || c.req.query("details") !== undefined)
      return next();
    const { ok, sources } = broker.health();
    const up = Object.fromEntries(Object.entries(sources).map(([id, s]) => [id, { up: s.up }]));
    return c.json({ ok, sources: up }, ok ? 200 : 503);
  });

  app.use("*", hostGuard(options.hosts));
  app.use("*", traceContext());
  app.get(RESOURCE_METADATA_PATH, resourceMetadata);
  app.get(`${RESOURCE_METADATA_PATH}/*`, resourceMetadata);
  // The console's page and scripts are for anyone; what it shows comes from the API below.
  app.route("/", consoleAssets());
  app.use(
    "*",
    tokenAuth({
      credentials: options.credentials,
      log,
      refused: (reason) => broker.metrics.tokenRefused(reason),
    }),
  );
  app.use("*", bodyLimit(maxBytes));
  app.get("/healthz", (c) => {
    needsAdmin(
      c.get("principal"),
      "/healthz",
      "the details of /healthz",
      " (without credentials, /healthz says up or down)",
    );
    const { ok, sources, registry } = broker.health();
    const details = Object.fromEntries(
      Object.entries(sources).map(([id, s]) => [
        id,
        {
          state: s.state,
          up: s.up,
          restarts: s.restarts,
          attempts: s.attempts,
          ...(s.lastError === undefined ? {} : { last_error: s.lastError }),
          ...(s.protocolVersion === undefined ? {} : { protocol_version: s.protocolVersion }),
        },
      ]),
    );
    const registered = Object.fromEntries(
      Object.entries(registry).map(([tool, h]) => [
        tool,
        {
          status: h.status,
          breaker: h.breaker,
          ...(h.lastError === undefined ? {} : { last_error: h.lastError }),
        },
      ]),
    );
    return c.json({ ok, sources: details, registry: registered }, ok ? 200 : 503);
  });
  app.get("/metrics", async (c) => {
    needsAdmin(c.get("principal"), "/metrics", "/metrics");
    return c.body(await broker.metrics.registry.metrics(), 200, {
      "content-type": broker.metrics.registry.contentType,
    });
  });
  app.route("/", metaRoutes(broker));
  const consoleEndpoints = consoleApi(broker, options.credentials);
  app.route("/", consoleEndpoints.app);
  app.route("/", rpcRoutes(broker));
  /**
   * An MCP POST's body, read once for whichever revision serves it: from
   * Node's stream where its length was declared, else as the body limit
   * buffered it while counting.
   */
  const posted = (c: Context<AuthEnv>) => {
    if (c.req.method !== "POST") return undefined;
    return declaresLength(c) ? nodeBodyText(c.env.incoming, maxBytes) : c.req.raw.text();
  };
  app.all("/mcp", async (c) => sessions.handle(c.req.raw, c.get("principal"), await posted(c)));
  // The HTTP+SSE transport of 2024-11-05, for clients that speak only it.
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
    const known = broker.sourceNames(c.get("principal"));
    if (!known.includes(name)) {
      return c.json(
        {
          jsonrpc: "2.0",
          error: {
            code: -32001,
            message: `no source named "${name}"; the sources are ${known.join(", ") || "(none)"}`,
          },
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
    async closeSessions() {
      book.stop();
      bridge.close();
      consoleEndpoints.close();
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
