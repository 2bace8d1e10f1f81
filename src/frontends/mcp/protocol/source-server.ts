import { randomUUID } from "node:crypto";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/core";
import { Server, type ServerCapabilities } from "@modelcontextprotocol/server";
import { allows } from "../../../auth/scopes.js";
import type { Broker } from "../../../broker/broker.js";
import type { CallerContext, Principal } from "../../../contract/router.js";
import { packageVersion } from "../../../contract/version.js";
import { announce } from "./announce.js";
import { combinedHint } from "./cache-hint.js";
import { handleRequest } from "./handle-request.js";
import { callTool, declaringTasks, serveTaskMethods } from "./task-extension.js";
import {
  endsWithItsRequest,
  isModern,
  sdkHost,
  servesOneRequest,
  type Era,
  type HandlerHost,
} from "./handler-host.js";
import type { InputBridge } from "./input-bridge.js";
import { serverOptions } from "./server-options.js";
import { protocolError } from "./protocol-error.js";
import { requestContext, type RequestExtra, type RequestMeta } from "./request-context.js";

/**
 * A source served as itself (`/mcp/<name>`, or `stdio --server NAME`), for a
 * 2025-era session or one 2026-07-28 request: the backend's `initialize` answer and capabilities,
 * its tools under their own names, and every other request passed on, each
 * through the broker and its policy. What the shared backend sends on its own
 * reaches this session only when it is this session's: updates of resources
 * it subscribed to, logs once it set a level.
 */
export function createSourceServer(
  broker: Broker,
  name: string,
  /** Who calls, read on every request (create-server.ts says why). */
  principal: () => Principal,
  era: Era,
  bridge: InputBridge,
): Server {
  const source = broker.source(name);
  const session = randomUUID();
  const server = new Server(
    source.serverInfo() ?? { name, version: packageVersion },
    serverOptions(sourceServerInfo(broker, name, era), bridge),
  );
  server.onerror = (err) => broker.log.warn({ err, source: name }, "MCP session error");
  const host = sdkHost(server, era, principal().id, bridge);
  const interest = serveSource(host, broker, name, principal, session);
  if (isModern(era)) serveTaskMethods(host, broker, principal);
  if (servesOneRequest(era)) return endsWithItsRequest(server, broker, session, era);
  const backend = source.capabilities();
  const unsubscribers = [
    broker.onTreeChange(() => announce(server, "tools")),
    broker.onSourceEvent((from, event) => {
      if (from !== name) return;
      if (event.type === "changed") {
        if (event.what === "resources" && backend.resources?.listChanged)
          announce(server, "resources");
        if (event.what === "prompts" && backend.prompts?.listChanged) announce(server, "prompts");
        return;
      }
      const n = event.notification;
      const mine =
        n.method === "notifications/resources/updated"
          ? interest.subscribed.has(n.params.uri)
          : interest.logging;
      if (mine) void server.notification(n).catch(() => undefined);
    }),
  ];
  server.onclose = () => {
    for (const unsubscribe of unsubscribers) unsubscribe();
    void broker.endSession(session);
  };
  return server;
}

/** A source's capabilities and instructions as its own endpoint offers them. */
export function sourceServerInfo(
  broker: Broker,
  name: string,
  era: Era,
): { capabilities: ServerCapabilities; instructions: string | undefined } {
  const source = broker.source(name);
  const backend = source.capabilities();
  return {
    capabilities: declaringTasks(
      { ...backend, tools: { ...backend.tools, listChanged: true } },
      era,
    ),
    instructions: source.instructions(),
  };
}

/** What a session of a source asked to hear of: resources it subscribed to, and logs. */
export interface SessionInterest {
  readonly subscribed: Set<string>;
  logging: boolean;
}

/**
 * A source's handlers on a server of either generation: its tools through
 * the broker, and every other request it offers passed on.
 */
export function serveSource(
  host: HandlerHost,
  broker: Broker,
  name: string,
  principal: () => Principal,
  session: string,
): SessionInterest {
  const source = broker.source(name);
  const backend = source.capabilities();
  const handling = { log: broker.log, profile: source.errorProfile };
  const ctx = (extra: RequestExtra, meta?: RequestMeta): CallerContext =>
    requestContext(extra, principal(), session, meta);
  const interest: SessionInterest = { subscribed: new Set(), logging: false };

  handleRequest(host, ListToolsRequestSchema, handling, async () => {
    const current = broker.source(name);
    return {
      tools: current.tools().filter((t) => allows(principal(), "call", current.leaf(t.name).path)),
      ...combinedHint([current.toolsCacheHint()], principal()),
    };
  });
  handleRequest(host, CallToolRequestSchema, handling, async (request, extra) => {
    const { name: tool, arguments: args = {} } = request.params;
    let path: string;
    try {
      const view = broker.source(name);
      try {
        path = view.leaf(tool).path;
      } catch (err) {
        broker.refuseHeld((c) => c.source === view.path && c.tool === tool, principal());
        throw err;
      }
    } catch (err) {
      // An unknown tool is a protocol error in either profile, not a result.
      throw protocolError(err, source.errorProfile);
    }
    return callTool(broker, path, args, ctx(extra, request.params._meta), extra);
  });

  if (backend.resources) {
    handleRequest(host, ListResourcesRequestSchema, handling, (r, extra) =>
      broker.request(name, "resources/list", r.params, ctx(extra)),
    );
    handleRequest(host, ListResourceTemplatesRequestSchema, handling, (r, extra) =>
      broker.request(name, "resources/templates/list", r.params, ctx(extra)),
    );
    handleRequest(host, ReadResourceRequestSchema, handling, (r, extra) =>
      broker.request(name, "resources/read", r.params, ctx(extra, r.params._meta)),
    );
    if (backend.resources.subscribe) {
      handleRequest(host, SubscribeRequestSchema, handling, async (r, extra) => {
        await broker.request(name, "resources/subscribe", r.params, ctx(extra));
        interest.subscribed.add(r.params.uri);
        return {};
      });
      handleRequest(host, UnsubscribeRequestSchema, handling, async (r, extra) => {
        interest.subscribed.delete(r.params.uri);
        await broker.request(name, "resources/unsubscribe", r.params, ctx(extra));
        return {};
      });
    }
  }
  if (backend.prompts) {
    handleRequest(host, ListPromptsRequestSchema, handling, (r, extra) =>
      broker.request(name, "prompts/list", r.params, ctx(extra)),
    );
    handleRequest(host, GetPromptRequestSchema, handling, (r, extra) =>
      broker.request(name, "prompts/get", r.params, ctx(extra, r.params._meta)),
    );
  }
  if (backend.completions) {
    handleRequest(host, CompleteRequestSchema, handling, (r, extra) =>
      broker.request(name, "completion/complete", r.params, ctx(extra)),
    );
  }
  if (backend.logging) {
    handleRequest(host, SetLevelRequestSchema, handling, async (r, extra) => {
      await broker.request(name, "logging/setLevel", r.params, ctx(extra));
      interest.logging = true;
      return {};
    });
  }
  return interest;
}
