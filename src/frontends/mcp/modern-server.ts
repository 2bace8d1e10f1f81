import { randomUUID } from "node:crypto";
import {
  Server,
  type ServerCapabilities,
  type ServerNotifier,
  type ServerOptions,
} from "@modelcontextprotocol/server";
import type { Broker } from "../../broker/broker.js";
import type { Principal } from "../../contract/router.js";
import { packageVersion } from "../../contract/version.js";
import { qualifiedUri } from "./aggregate-names.js";
import { brokerServerInfo, serveBroker, type McpServerOptions } from "./create-server.js";
import type { InputBridge } from "./input-bridge.js";
import { modernHost } from "./modern-host.js";
import { serveSource, sourceServerInfo } from "./source-server.js";

/**
 * The broker's aggregated endpoint for one 2026-07-28 request: the same
 * handlers as a 2025-era session, on an SDK 2.x server that lives for the
 * request.
 */
export function createModernServer(
  broker: Broker,
  options: McpServerOptions,
  bridge: InputBridge,
): Server {
  const server = new Server(
    { name: "mcp-broker", version: packageVersion },
    modernOptions(brokerServerInfo(options.expose), bridge),
  );
  server.onerror = (err) => broker.log.warn({ err }, "MCP request error");
  serveBroker(modernHost(server, options.principal, bridge), broker, {
    ...options,
    session: randomUUID(),
  });
  return server;
}

/** One source served as itself (`/mcp/<name>`) for one 2026-07-28 request. */
export function createModernSourceServer(
  broker: Broker,
  name: string,
  principal: Principal,
  bridge: InputBridge,
): Server {
  const source = broker.source(name);
  const server = new Server(
    source.serverInfo() ?? { name, version: packageVersion },
    modernOptions(sourceServerInfo(broker, name), bridge),
  );
  server.onerror = (err) => broker.log.warn({ err, source: name }, "MCP request error");
  serveSource(modernHost(server, principal, bridge), broker, name, principal, randomUUID());
  return server;
}

/**
 * A server's options in SDK 2.x terms. Capabilities are the same JSON in both
 * generations; only the SDKs' type declarations differ (an `experimental`
 * entry is an `object` in one and a JSON object in the other).
 */
function modernOptions(
  info: { capabilities: object; instructions: string | undefined },
  bridge: InputBridge,
): ServerOptions {
  return {
    capabilities: info.capabilities as ServerCapabilities,
    instructions: info.instructions,
    requestState: { verify: bridge.codec.verify },
  };
}

/**
 * Tells open `subscriptions/listen` streams of the aggregated endpoint what
 * changed: the tree, and the sources' resources and prompts (updates under
 * their qualified URIs). Returns the cleanup.
 */
export function notifyBrokerChanges(broker: Broker, notify: ServerNotifier): () => void {
  const offTree = broker.onTreeChange(() => notify.toolsChanged());
  const offSources = broker.onSourceEvent((source, event) => {
    if (event.type === "changed") {
      if (event.what === "resources") notify.resourcesChanged();
      if (event.what === "prompts") notify.promptsChanged();
    } else if (event.notification.method === "notifications/resources/updated") {
      notify.resourceUpdated(qualifiedUri(source, event.notification.params.uri));
    }
  });
  return () => {
    offTree();
    offSources();
  };
}

/** The same for one source's own endpoint, under the source's own URIs. */
export function notifySourceChanges(
  broker: Broker,
  name: string,
  notify: ServerNotifier,
): () => void {
  const offTree = broker.onTreeChange(() => notify.toolsChanged());
  const offSource = broker.onSourceEvent((from, event) => {
    if (from !== name) return;
    if (event.type === "changed") {
      if (event.what === "resources") notify.resourcesChanged();
      if (event.what === "prompts") notify.promptsChanged();
    } else if (event.notification.method === "notifications/resources/updated") {
      notify.resourceUpdated(event.notification.params.uri);
    }
  });
  return () => {
    offTree();
    offSource();
  };
}
