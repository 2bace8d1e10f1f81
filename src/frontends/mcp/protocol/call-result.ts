import type { CallToolResult } from "@modelcontextprotocol/server";
import type { CallOutput } from "../../../broker/meta-api/answers.js";
import {
  asBrokerError,
  type BackendProtocolError,
  type BrokerError,
  type ErrorProfile,
} from "../../../contract/errors.js";
import { isRefusal, protocolError } from "./protocol-error.js";

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

/**
 * A backend's errors that ask the client itself to act: a capability it must
 * declare (-32021, 2026-07-28), a URL it must open (-32042, 2025-11-25).
 */
const CLIENT_ACTION_CODES = new Set([-32021, -32042]);

/**
 * Failures become `isError` results the model can read and correct; policy
 * refusals, internal failures and a backend's errors for the client to act on
 * are JSON-RPC errors (see protocolError).
 */
export function asToolError(err: unknown, profile: ErrorProfile = "mcp"): CallToolResult {
  const e = asBrokerError(err);
  if (e.kind === "internal" || isRefusal(e)) throw protocolError(e, profile);
  const backend = e.details?.backend as BackendProtocolError | undefined;
  if (backend && CLIENT_ACTION_CODES.has(backend.code)) throw protocolError(e, profile);
  if (profile === "emcp" && (e.kind === "invalid_params" || e.kind === "not_found"))
    throw protocolError(e, profile);
  return errorResult(e);
}
