import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallOutput } from "../../core/broker.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { asBrokerError, type BrokerError } from "../../core/errors.js";
import { REST_STATUS } from "../rest/status.js";

/** A broker call's output as an MCP tool result: untouched in `mcp` mode, one text part otherwise. */
export function toCallToolResult(out: CallOutput): CallToolResult {
  if (out.renderMode === "mcp" && !out.truncated) return out.result;
  return { content: [{ type: "text", text: asText(out.output) }], isError: out.isError };
}

export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}

/** A failure the model can act on, as a tool result rather than a protocol error. */
export function errorResult(err: BrokerError): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify({ error: err.toJSON() }) }],
    isError: true,
  };
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Refusals by policy: on HTTP they are statuses, so in MCP they are errors, not tool results. */
const REFUSALS = new Set([
  "unauthenticated",
  "forbidden",
  "rate_limited",
  "idempotency_conflict",
  "too_large",
]);

/**
 * Failures become `isError` results the model can read and correct; policy
 * refusals and internal failures are JSON-RPC errors, with the kind and the
 * HTTP status an HTTP client would have had in `data`.
 */
export function asToolError(err: unknown): CallToolResult {
  const e = asBrokerError(err);
  if (e.kind === "internal") throw new McpError(ErrorCode.InternalError, e.message);
  if (REFUSALS.has(e.kind)) {
    throw Object.assign(new Error(e.message), {
      code: ErrorCode.InvalidRequest,
      data: { kind: e.kind, http_status: REST_STATUS[e.kind], ...e.details },
    });
  }
  return errorResult(e);
}
