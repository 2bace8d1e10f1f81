import { Hono, type Context } from "hono";
import { sees } from "../../auth/scopes.js";
import type { Broker } from "../../broker/broker.js";
import { BrokerError } from "../../contract/errors.js";
import { packageVersion } from "../../contract/version.js";
import type { AuthEnv } from "../http/token-auth/index.js";
import { namespaceOf, shortDescription } from "./server-names.js";

const SERVER_CARD_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json";
const SERVER_JSON_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
const CARD_TYPE = "application/mcp-server-card+json";
/** The revisions every endpoint of the broker speaks. */
const REVISIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"];

interface Listed {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly version: string;
  readonly endpoint: string;
}

/**
 * What the broker serves, for clients and registries that discover before
 * they connect: its own Server Card at `/mcp/server-card` (the Server Card
 * draft: identity and where to connect, never its tools) and the host's MCP
 * Catalog naming it (`/.well-known/mcp/catalog.json`), open to anyone;
 * and, for a caller, each source it may see as a server of the MCP
 * Registry's API (`GET /v0.1/servers`, `/v0.1/servers/{name}/versions/{version}`)
 * and by its own card (`/mcp/<name>/server-card`), at `/mcp/<name>`.
 */
export function discoveryRoutes(broker: Broker) {
  const open = new Hono<AuthEnv>();
  open.get("/mcp/server-card", (c) => card(c, brokerListing(c)));
  // The MCP Catalog of the host: the broker's own card (its sources are for callers to list).
  open.get("/.well-known/mcp/catalog.json", (c) => {
    const url = new URL(c.req.url);
    c.header("Access-Control-Allow-Origin", "*");
    c.header("Cache-Control", "public, max-age=300");
    return c.json({
      specVersion: "draft",
      entries: [
        {
          identifier: `urn:air:${url.hostname.replace(/^\[|\]$/g, "")}:mcp-broker`,
          displayName: "mcp-broker",
          type: CARD_TYPE,
          url: `${url.origin}/mcp/server-card`,
        },
      ],
    });
  });

  const guarded = new Hono<AuthEnv>();
  guarded.get("/mcp/:name/server-card", (c) => {
    const found = listings(c, broker).find((l) => l.endpoint === `/mcp/${c.req.param("name")}`);
    if (!found) throw new BrokerError("not_found", `no source named "${c.req.param("name")}"`);
    return card(c, found);
  });
  guarded.get("/v0.1/servers", (c) => {
    const search = c.req.query("search") ?? "";
    const limit = Math.min(Math.max(Number(c.req.query("limit") ?? 30) || 30, 1), 100);
    const start = Number(c.req.query("cursor") ?? 0) || 0;
    const all = [brokerListing(c), ...listings(c, broker)].filter((l) => l.name.includes(search));
    const page = all.slice(start, start + limit);
    const next = start + limit < all.length ? { nextCursor: String(start + limit) } : {};
    return c.json({
      servers: page.map((l) => response(c, l)),
      metadata: { count: page.length, ...next },
    });
  });
  guarded.get("/v0.1/servers/:name/versions/:version", (c) => {
    const name = decodeURIComponent(c.req.param("name"));
    const version = decodeURIComponent(c.req.param("version"));
    const found = [brokerListing(c), ...listings(c, broker)].find(
      (l) => l.name === name && (version === "latest" || version === l.version),
    );
    if (!found) return c.json({ error: "Server not found" }, 404);
    return c.json(response(c, found));
  });
  return { open, guarded };
}

function brokerListing(c: Context<AuthEnv>): Listed {
  return {
    name: `${namespaceOf(new URL(c.req.url).hostname)}/mcp-broker`,
    title: "mcp-broker",
    description: "Every tool source behind one MCP endpoint, as a searchable tree",
    version: packageVersion,
    endpoint: "/mcp",
  };
}

/** The sources the caller may see, each as a server at `/mcp/<name>`. */
function listings(c: Context<AuthEnv>, broker: Broker): Listed[] {
  const namespace = namespaceOf(new URL(c.req.url).hostname);
  const principal = c.get("principal");
  return broker
    .allSources()
    .filter((s) => sees(principal, s.path))
    .map((s) => {
      const info = s.serverInfo();
      return {
        name: `${namespace}/${s.name}`,
        title: info?.title ?? info?.name ?? s.name,
        description: shortDescription(s.summary() ?? s.instructions(), `The source at ${s.path}`),
        version: info?.version ?? packageVersion,
        endpoint: `/mcp/${s.name}`,
      };
    });
}

function remotes(c: Context<AuthEnv>, listed: Listed) {
  const origin = new URL(c.req.url).origin;
  return [
    {
      type: "streamable-http",
      url: `${origin}${listed.endpoint}`,
      supportedProtocolVersions: REVISIONS,
    },
    { type: "sse", url: `${origin}${listed.endpoint.replace(/^\/mcp/, "/sse")}` },
  ];
}

function card(c: Context<AuthEnv>, listed: Listed): Response {
  c.header("Access-Control-Allow-Origin", "*");
  c.header("Cache-Control", "public, max-age=300");
  return c.body(
    JSON.stringify({
      $schema: SERVER_CARD_SCHEMA,
      name: listed.name,
      version: listed.version,
      description: listed.description,
      title: listed.title,
      remotes: remotes(c, listed),
    }),
    200,
    { "content-type": CARD_TYPE },
  );
}

function response(c: Context<AuthEnv>, listed: Listed) {
  return {
    server: {
      $schema: SERVER_JSON_SCHEMA,
      name: listed.name,
      title: listed.title,
      description: listed.description,
      version: listed.version,
      remotes: remotes(c, listed).map(({ type, url }) => ({ type, url })),
    },
  };
}
