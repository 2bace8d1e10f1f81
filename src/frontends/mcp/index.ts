/**
 * The MCP frontend: the protocol served (`protocol/`), how it travels
 * (`transport/`: Streamable HTTP in both revisions, legacy SSE, stdio,
 * sessions) and several instances sharing one store (`shared/`). What lies
 * outside uses only what this file exports.
 */
export { mcpEndpoints, type McpEndpointOptions, type McpEndpoints } from "./http-endpoints.js";
export { serveMcpStdio, type McpStdioOptions } from "./stdio.js";
export { DEFAULT_SESSION_LIMITS, type SessionLimits } from "./transport/session-book.js";
