import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Credentials } from "../auth/credentials.js";
import { needsAdmin } from "../auth/needs-admin.js";
import { ProtectedResource, RESOURCE_METADATA_PATH } from "../auth/oauth/protected-resource.js";
import type { Broker } from "../broker/broker.js";
import type { ExposeMode, ScopeAction } from "../config/schema.js";
import { asBrokerError, BrokerError, HTTP_STATUS } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import { consoleApi, consoleAssets } from "../frontends/console/index.js";
import { bodyLimit } from "../frontends/http/body-limit/index.js";
import { hostGuard, type HostGuardOptions } from "../frontends/http/host-guard/index.js";
import { tokenAuth, type AuthEnv } from "../frontends/http/token-auth/index.js";
import { discoveryRoutes } from "../frontends/discovery/index.js";
import { traceContext } from "../frontends/http/trace-context/index.js";
import { mcpEndpoints, type SessionLimits } from "../frontends/mcp/index.js";
import { isJsonObject } from "../contract/json-text.js";
import { metaRoutes, pinRoutes, taskRoutes } from "../frontends/rest/index.js";
import { rpcRoutes } from "../frontends/rpc/index.js";

/** Where clients look for an authorization server at the resource's own origin. */
const AUTHORIZATION_SERVER_PATHS = [
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-authorization-server/*",
  "/.well-known/openid-configuration",
  "/.well-known/openid-configuration/*",
  "/register",
  "/authorize",
  "/token",
];
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
  const mcp = mcpEndpoints({ ...options, maxRequestBytes: maxBytes });
  const app = new Hono<AuthEnv>();
  app.onError((err, c) => {
    // Hono's own middleware (bearerAuth) throws its finished response.
    if (err instanceof HTTPException) return err.getResponse();
    const e = asBrokerError(err);
    if (e.kind === "internal") log.error({ err, path: c.req.path }, "request failed");
    // The rest of an oversized body is never read, so the connection cannot be reused.
    if (e.kind === "too_large") c.header("Connection", "close");
    if (e.kind === "rate_limited") c.header("Retry-After", String(e.details?.retry_after_s ?? 1));
    // A source down until its next start: when that is (its own wait is kept to near ones).
    if (e.kind === "unavailable" && typeof e.details?.retry_after_s === "number")
      c.header("Retry-After", String(e.details.retry_after_s));
    // A call parked as a task awaiting approval: answered as a task, where to follow it.
    if (e.kind === "pending" && isJsonObject(e.details?.task)) {
      c.header("Location", `/tasks/${String(e.details.task.id)}`);
      return c.json({ task: e.details.task, message: e.message }, 202);
    }
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
  const notAnAuthorizationServer = () => {
    const oauth = options.credentials().oauth;
    throw new BrokerError(
      "not_found",
      oauth
        ? `the broker is not an authorization server: get a token from ${oauth.resource.issuer}, as ${RESOURCE_METADATA_PATH} says`
        : "the broker is not an authorization server and takes no OAuth sign-in: send the token its config gives you as Authorization: Bearer <token>",
    );
  };
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
          message: `no endpoint ${c.req.method} ${c.req.path}; the endpoints are GET / (the console), POST /meta_tree, /meta_desc, /meta_search, /meta_call, /meta_run, /rpc, /mcp, /mcp/<source>, GET /sse, /sse/<source> and GET /healthz`,
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
  // Clients look for an authorization server at the broker's origin (the 2025-03-26 way) and
  // try to register with it: a 401 there reads as "registration rejected", a 404 as "none here".
  for (const path of AUTHORIZATION_SERVER_PATHS) app.all(path, notAnAuthorizationServer);
  const discovery = discoveryRoutes(broker);
  // The broker's Server Card says who it is and where to connect: for anyone, as OAuth metadata is.
  app.route("/", discovery.open);
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
          ...(s.lastDown === undefined ? {} : { last_down: s.lastDown }),
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
  app.route("/", taskRoutes(broker));
  app.route("/", pinRoutes(broker));
  app.route("/", discovery.guarded);
  const consoleEndpoints = consoleApi(broker, options.credentials);
  app.route("/", consoleEndpoints.app);
  app.route("/", rpcRoutes(broker));
  app.route("/", mcp.app);
  return {
    app,
    async closeSessions() {
      consoleEndpoints.close();
      await mcp.close();
    },
  };
}
