import { randomUUID } from "node:crypto";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/core";
import {
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerCapabilities,
  type ServerResult,
  type Tool,
} from "@modelcontextprotocol/server";
import type { Broker } from "../../../broker/broker.js";
import { allows } from "../../../auth/scopes.js";
import type { CallerContext, Principal } from "../../../contract/router.js";
import { packageVersion } from "../../../contract/version.js";
import type { ExposeMode } from "../../../config/schema.js";
import { didYouMean } from "../../../contract/did-you-mean.js";
import { flatName } from "../../../tree/flat-name.js";
import type { ToolEntry } from "../../../tree/tree.js";
import {
  AGGREGATE_CAPABILITIES,
  announceCatalogChanges,
  serveAggregateCatalog,
} from "./aggregate-catalog.js";
import { jsonResult } from "./call-result.js";
import { combinedHint } from "./cache-hint.js";
import { handleRequest } from "./handle-request.js";
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
import { META_TOOL_NAMES, metaToolsFor } from "../../../broker/meta-api/tools.js";
import { announce } from "./announce.js";
import { parseRequest } from "../../../broker/meta-api/parse-request.js";
import {
  CallRequest,
  DescribeRequest,
  RunRequest,
  SearchRequest,
  TreeRequest,
  TREE_PAGE,
} from "../../../broker/meta-api/requests.js";
import { requestContext, type RequestExtra } from "./request-context.js";
import { callTool, declaringTasks, serveTaskMethods } from "./task-extension.js";

export interface McpServerOptions {
  readonly expose: ExposeMode;
  /**
   * Who calls: read on every request, so a session's scopes are its token's as
   * they are now (a reload that narrows them reaches open sessions at once).
   */
  readonly principal: () => Principal;
  readonly era: Era;
  readonly bridge: InputBridge;
}

/** What the broker's aggregated endpoint says of itself, in either revision. */
export function brokerServerInfo(
  expose: ExposeMode,
  era: Era,
): {
  capabilities: ServerCapabilities;
  instructions: string | undefined;
} {
  return {
    capabilities: declaringTasks({ tools: { listChanged: true }, ...AGGREGATE_CAPABILITIES }, era),
    instructions:
      expose === "flat"
        ? undefined
        : 'Tools are arranged in a tree. Find one with meta_search (or explore with meta_tree from path "/"), read its args_schema with meta_desc (or ask meta_search for include_schema), then meta_call it; meta_run runs a script that calls many tools in one step.',
  };
}

/**
 * The broker as one MCP server: the meta tools, every leaf as a flat tool, or
 * both, for a 2025-era session or one 2026-07-28 request. Protocol only: the
 * transport is the caller's business.
 */
export function createMcpServer(broker: Broker, options: McpServerOptions): Server {
  const server = new Server(
    { name: "mcp-broker", version: packageVersion },
    serverOptions(brokerServerInfo(options.expose, options.era), options.bridge),
  );
  const session = randomUUID();
  server.onerror = (err) => broker.log.warn({ err }, "MCP session error");
  const host = sdkHost(server, options.era, options.principal().id, options.bridge);
  const subscribed = serveBroker(host, broker, { ...options, session });
  if (isModern(options.era)) serveTaskMethods(host, broker, options.principal);
  // A server that lives for one request does not hear of changes: they reach
  // its client on the endpoint's `subscriptions/listen` streams (listen-notices.ts).
  if (servesOneRequest(options.era))
    return endsWithItsRequest(server, broker, session, options.era);
  const unsubscribers = [
    broker.onTreeChange(() => announce(server, "tools")),
    announceCatalogChanges(server, broker, subscribed),
  ];
  const previousOnClose = server.onclose;
  server.onclose = () => {
    for (const unsubscribe of unsubscribers) unsubscribe();
    void broker.endSession(session);
    previousOnClose?.();
  };
  return server;
}

/**
 * The broker's handlers on a server of either generation: `tools/list` and
 * `tools/call` (meta tools, flat tools or both) and the aggregated resources
 * and prompts. Returns the qualified URIs the session subscribes to.
 */
export function serveBroker(
  host: HandlerHost,
  broker: Broker,
  options: { expose: ExposeMode; principal: () => Principal; session: string },
): ReadonlySet<string> {
  const { principal, session } = options;
  const showMeta = options.expose !== "flat";
  const showFlat = options.expose !== "meta";
  const handling = { log: broker.log };

  handleRequest(host, ListToolsRequestSchema, handling, async () => ({
    tools: [
      // meta_run is listed to those who may run scripts, as a flat tool to those who may call it.
      ...(showMeta
        ? metaToolsFor(broker.topEntries(principal()), allows(principal(), "run", "/"))
        : []),
      ...(showFlat ? broker.callableTools(principal()).map(flatTool) : []),
    ],
    // Flat tools are as fresh as their sources say, and so are the meta tools, whose
    // descriptions name the top of the tree those sources build; a token's list is its own.
    ...combinedHint(
      broker.allSources().map((s) => s.toolsCacheHint()),
      principal(),
    ),
  }));

  handleRequest(host, CallToolRequestSchema, handling, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const ctx = requestContext(extra, principal(), session, request.params._meta);
    if (showMeta && META_TOOL_NAMES.has(name)) return metaCall(broker, name, args, ctx, extra);
    const found = showFlat ? broker.tree().toolByFlatName(name) : undefined;
    // One tools/list does not show is unknown, whether it exists or not.
    const leaf = found && allows(ctx.principal, "call", found.path) ? found : undefined;
    if (!leaf && showFlat) broker.refuseHeld((c) => flatName(c.path) === name, ctx.principal);
    if (!leaf) {
      // A flat name is its path's segments joined by "__": near ones are found as paths.
      const near = showFlat
        ? broker
            .tree()
            .nearLeaves(`/${name.split("__").join("/")}`, (l) =>
              allows(ctx.principal, "call", l.path),
            )
            .map((l) => l.flatName)
        : [];
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `unknown tool "${name}"${didYouMean(near)}; tools/list shows the tools there are`,
      );
    }
    return callTool(broker, leaf.path, args, ctx, extra);
  });

  return serveAggregateCatalog(host, broker, (extra) =>
    requestContext(extra, principal(), session),
  );
}

/**
 * The meta tools, their arguments parsed with the schemas REST parses its
 * bodies with; a failure (a path that is not there) is theirs to answer as a
 * tool result.
 */
async function metaCall(
  broker: Broker,
  name: string,
  args: Record<string, unknown>,
  ctx: CallerContext,
  extra: RequestExtra,
): Promise<ServerResult> {
  switch (name) {
    case "meta_search":
      return jsonResult(
        await broker.search(parseRequest(SearchRequest, args), ctx.principal, ctx.signal),
      );
    case "meta_tree": {
      const { path, offset = 0 } = parseRequest(TreeRequest, args);
      return jsonResult(broker.list(path, ctx.principal, offset));
    }
    case "meta_desc":
      return jsonResult(
        broker.metaDesc(parseRequest(DescribeRequest, args), ctx.principal, TREE_PAGE),
      );
    case "meta_run": {
      const answer = await broker.run(parseRequest(RunRequest, args), ctx);
      return answer.error === undefined
        ? jsonResult(answer)
        : { ...jsonResult(answer), isError: true };
    }
    default: {
      const { path, args: toolArgs } = parseRequest(CallRequest, args);
      return callTool(broker, path, toolArgs, ctx, extra);
    }
  }
}

function flatTool(leaf: ToolEntry): Tool {
  const tool: Tool = {
    name: leaf.flatName,
    description: leaf.description || leaf.summary,
    inputSchema: leaf.tool.inputSchema,
  };
  if (leaf.tool.annotations) tool.annotations = leaf.tool.annotations;
  return tool;
}
