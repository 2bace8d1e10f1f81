import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
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
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { allows } from "../../auth/scopes.js";
import type { Broker } from "../../broker/broker.js";
import type { CallContext, Principal } from "../../contract/router.js";
import type { SourceRelay } from "../../broker/source-relay.js";
import { packageVersion } from "../../contract/version.js";
import { asToolError, toCallToolResult } from "./call-result.js";
import { announce } from "./announce.js";
import { protocolError } from "./protocol-error.js";
import { requestContext, type RequestExtra, type RequestMeta } from "./request-context.js";

/**
 * One client session of a source served as itself (`/mcp/<name>`, or
 * `stdio --server NAME`): the backend's `initialize` answer and capabilities,
 * its tools under their own names, and every other request relayed. What the
 * shared backend sends on its own reaches this session only when it is this
 * session's: updates of resources it subscribed to, logs once it set a level.
 */
export function createSourceServer(broker: Broker, name: string, principal: Principal): Server {
  const relay = broker.relay(name);
  const session = randomUUID();
  const backend = relay.capabilities();
  const capabilities: ServerCapabilities = {
    ...backend,
    tools: { ...backend.tools, listChanged: true },
  };
  const server = new Server(relay.serverInfo() ?? { name, version: packageVersion }, {
    capabilities,
    instructions: relay.instructions(),
  });
  const current = (): SourceRelay => broker.relay(name);
  const ctx = (extra: RequestExtra, meta?: RequestMeta): CallContext =>
    requestContext(extra, principal, session, meta);
  const relayed =
    <R>(work: () => Promise<R>) =>
    async (): Promise<R> => {
      try {
        return await work();
      } catch (err) {
        throw protocolError(err);
      }
    };

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: current()
      .tools()
      .filter((t) => allows(principal, "call", current().leaf(t.name).path)),
  }));
  const profile = relay.errorProfile;
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name: tool, arguments: args = {} } = request.params;
    let path: string;
    try {
      path = current().leaf(tool).path;
    } catch (err) {
      throw protocolError(err, profile);
    }
    try {
      const out = await broker.call(path, args, ctx(extra, request.params._meta));
      return toCallToolResult(out);
    } catch (err) {
      return asToolError(err, profile);
    }
  });

  const subscribed = new Set<string>();
  let logging = false;
  if (backend.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (r, extra) =>
      relayed(() => current().listResources(r.params, ctx(extra)))(),
    );
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (r, extra) =>
      relayed(() => current().listResourceTemplates(r.params, ctx(extra)))(),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (r, extra) =>
      relayed(() => current().readResource(r.params, ctx(extra)))(),
    );
    if (backend.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, (r, extra) =>
        relayed(async () => {
          await current().subscribe(r.params.uri, ctx(extra));
          subscribed.add(r.params.uri);
          return {};
        })(),
      );
      server.setRequestHandler(UnsubscribeRequestSchema, (r, extra) =>
        relayed(async () => {
          subscribed.delete(r.params.uri);
          await current().unsubscribe(r.params.uri, ctx(extra));
          return {};
        })(),
      );
    }
  }
  if (backend.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (r, extra) =>
      relayed(() => current().listPrompts(r.params, ctx(extra)))(),
    );
    server.setRequestHandler(GetPromptRequestSchema, (r, extra) =>
      relayed(() => current().getPrompt(r.params, ctx(extra, r.params._meta)))(),
    );
  }
  if (backend.completions) {
    server.setRequestHandler(CompleteRequestSchema, (r, extra) =>
      relayed(() => current().complete(r.params, ctx(extra)))(),
    );
  }
  if (backend.logging) {
    server.setRequestHandler(SetLevelRequestSchema, (r, extra) =>
      relayed(async () => {
        await current().setLoggingLevel(r.params.level, ctx(extra));
        logging = true;
        return {};
      })(),
    );
  }

  const unsubscribers = [
    broker.onTreeChange(() => announce(server, "tools")),
    broker.onSourceEvent((source, event) => {
      if (source !== name) return;
      if (event.type === "changed") {
        if (event.what === "resources" && backend.resources?.listChanged)
          announce(server, "resources");
        if (event.what === "prompts" && backend.prompts?.listChanged) announce(server, "prompts");
        return;
      }
      const n = event.notification;
      const mine =
        n.method === "notifications/resources/updated" ? subscribed.has(n.params.uri) : logging;
      if (mine) void server.notification(n).catch(() => undefined);
    }),
  ];
  server.onclose = () => {
    for (const unsubscribe of unsubscribers) unsubscribe();
    void current()
      .endSession(session)
      .catch(() => undefined);
  };
  return server;
}
