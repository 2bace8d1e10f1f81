import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Broker } from "../../core/broker.js";
import { asBrokerError, BrokerError } from "../../core/errors.js";
import type { Principal } from "../../core/router.js";
import { packageVersion } from "../../core/version.js";
import type { ExposeMode } from "../../config/schema.js";
import type { ToolEntry } from "../../tree/tree.js";
import { errorResult, jsonResult, toCallToolResult } from "./call-result.js";
import { META_TOOL_NAMES, META_TOOLS } from "./meta-tools.js";

const FAR_FUTURE_MS = 24 * 60 * 60 * 1000;

export interface McpServerOptions {
  readonly expose: ExposeMode;
  readonly principal: Principal;
}

type Extra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];

/**
 * One MCP server session over the broker: the meta tools, every leaf as a flat
 * tool, or both. Protocol only: the transport is the caller's business.
 */
export function createMcpServer(broker: Broker, options: McpServerOptions): Server {
  const server = new Server(
    { name: "mcp-broker", version: packageVersion },
    {
      capabilities: { tools: { listChanged: true } },
      instructions:
        options.expose === "flat"
          ? undefined
          : 'Tools are arranged in a tree. Call meta_tree with path "/" to explore, meta_desc on a tool to get its args_schema, then meta_call.',
    },
  );
  const showMeta = options.expose !== "flat";
  const showFlat = options.expose !== "meta";

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      ...(showMeta ? META_TOOLS : []),
      ...(showFlat ? broker.tree().tools().map(flatTool) : []),
    ],
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const ctx = callContext(request, extra, options.principal);
    if (showMeta && META_TOOL_NAMES.has(name)) return metaCall(broker, name, args, ctx);
    const leaf = showFlat ? broker.tree().toolByFlatName(name) : undefined;
    if (!leaf)
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool "${name}"; tools/list shows the tools there are`,
      );
    try {
      return toCallToolResult(await broker.call(leaf.path, args, ctx));
    } catch (err) {
      return asToolError(err);
    }
  });

  const unsubscribe = broker.onTreeChange(() => {
    server.sendToolListChanged().catch(() => undefined);
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previousOnClose?.();
  };
  return server;
}

async function metaCall(
  broker: Broker,
  name: string,
  args: Record<string, unknown>,
  ctx: ReturnType<typeof callContext>,
): Promise<CallToolResult> {
  try {
    const path = typeof args.path === "string" ? args.path : name === "meta_tree" ? "/" : undefined;
    if (path === undefined)
      throw new BrokerError("invalid_params", `${name} needs a "path" argument, such as "/"`);
    switch (name) {
      case "meta_tree":
        return jsonResult(broker.list(path));
      case "meta_desc":
        return jsonResult(broker.describe(path));
      default:
        return toCallToolResult(await broker.call(path, args.args ?? {}, ctx));
    }
  } catch (err) {
    return asToolError(err);
  }
}

/** Failures become `isError` results the model can read and correct, except internal ones. */
function asToolError(err: unknown): CallToolResult {
  const e = asBrokerError(err);
  if (e.kind === "internal") throw new McpError(ErrorCode.InternalError, e.message);
  return errorResult(e);
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

function callContext(request: CallToolRequest, extra: Extra, principal: Principal) {
  const token = request.params._meta?.progressToken;
  return {
    signal: extra.signal,
    deadline: Date.now() + FAR_FUTURE_MS,
    principal,
    progress:
      token === undefined
        ? undefined
        : (p: { progress: number; total?: number; message?: string }) => {
            extra
              .sendNotification({
                method: "notifications/progress",
                params: { ...p, progressToken: token },
              })
              .catch(() => undefined);
          },
  };
}
