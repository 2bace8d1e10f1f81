import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Broker } from "../../broker/broker.js";
import { BrokerError } from "../../contract/errors.js";
import type { CallContext, Principal } from "../../contract/router.js";
import { packageVersion } from "../../contract/version.js";
import type { ExposeMode } from "../../config/schema.js";
import type { ToolEntry } from "../../tree/tree.js";
import { AGGREGATE_CAPABILITIES, serveAggregateCatalog } from "./aggregate-catalog.js";
import { jsonResult, toCallToolResult } from "./call-result.js";
import { handleRequest } from "./handle-request.js";
import { META_TOOL_NAMES, META_TOOLS } from "./meta-tools.js";
import { announce } from "./announce.js";
import { ProtocolError } from "./protocol-error.js";
import { requestContext } from "./request-context.js";

export interface McpServerOptions {
  readonly expose: ExposeMode;
  readonly principal: Principal;
}

/**
 * One MCP server session over the broker: the meta tools, every leaf as a flat
 * tool, or both. Protocol only: the transport is the caller's business.
 */
export function createMcpServer(broker: Broker, options: McpServerOptions): Server {
  const server = new Server(
    { name: "mcp-broker", version: packageVersion },
    {
      capabilities: { tools: { listChanged: true }, ...AGGREGATE_CAPABILITIES },
      instructions:
        options.expose === "flat"
          ? undefined
          : 'Tools are arranged in a tree. Call meta_tree with path "/" to explore, meta_desc on a tool to get its args_schema, then meta_call.',
    },
  );
  const session = randomUUID();
  const showMeta = options.expose !== "flat";
  const showFlat = options.expose !== "meta";

  const handling = { log: broker.log };
  server.onerror = (err) => broker.log.warn({ err }, "MCP session error");

  handleRequest(server, ListToolsRequestSchema, handling, async () => ({
    tools: [
      ...(showMeta ? META_TOOLS : []),
      ...(showFlat ? broker.callableTools(options.principal).map(flatTool) : []),
    ],
  }));

  handleRequest(server, CallToolRequestSchema, handling, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const ctx = requestContext(extra, options.principal, session, request.params._meta);
    if (showMeta && META_TOOL_NAMES.has(name)) return metaCall(broker, name, args, ctx);
    const leaf = showFlat ? broker.tree().toolByFlatName(name) : undefined;
    if (!leaf)
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `unknown tool "${name}"; tools/list shows the tools there are`,
      );
    return toCallToolResult(await broker.call(leaf.path, args, ctx));
  });

  const offCatalog = serveAggregateCatalog(server, broker, (extra) =>
    requestContext(extra, options.principal, session),
  );
  const unsubscribe = broker.onTreeChange(() => {
    announce(server, "tools");
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    offCatalog();
    void broker.endSession(session);
    previousOnClose?.();
  };
  return server;
}

/** The meta tools; a failure (a path that is not there) is theirs to answer as a tool result. */
async function metaCall(
  broker: Broker,
  name: string,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<CallToolResult> {
  const path = typeof args.path === "string" ? args.path : name === "meta_tree" ? "/" : undefined;
  if (path === undefined)
    throw new BrokerError("invalid_params", `${name} needs a "path" argument, such as "/"`);
  switch (name) {
    case "meta_tree":
      return jsonResult(broker.list(path, ctx.principal));
    case "meta_desc":
      return jsonResult(broker.describe(path, ctx.principal));
    default:
      return toCallToolResult(await broker.call(path, args.args ?? {}, ctx));
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
