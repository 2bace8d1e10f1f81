/**
 * Attribute names of the OpenTelemetry semantic conventions for MCP (and the
 * GenAI and RPC ones they build on), as the broker's spans and metrics use them.
 */
export const MCP_METHOD = "mcp.method.name";
export const MCP_SESSION = "mcp.session.id";
export const MCP_PROTOCOL_VERSION = "mcp.protocol.version";
export const MCP_RESOURCE_URI = "mcp.resource.uri";
export const GEN_AI_TOOL = "gen_ai.tool.name";
export const GEN_AI_PROMPT = "gen_ai.prompt.name";
export const GEN_AI_OPERATION = "gen_ai.operation.name";
export const JSONRPC_REQUEST_ID = "jsonrpc.request.id";
export const ERROR_TYPE = "error.type";
/** Opt-in: what a call was given and what it answered (redacted). */
export const TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments";
export const TOOL_CALL_RESULT = "gen_ai.tool.call.result";
/** The tree path a request is governed at: the broker's own attribute. */
export const BROKER_PATH = "mcp_broker.path";
/** The `meta_run` script a call was made by. */
export const BROKER_RUN = "mcp_broker.run_id";
/** `error.type` of a tool result with `isError`: the call worked, the tool said no. */
export const TOOL_ERROR = "tool_error";
/** The source (mount path) a backend request goes to: the broker's own attribute. */
export const BACKEND_SOURCE = "mcp_broker.source";
