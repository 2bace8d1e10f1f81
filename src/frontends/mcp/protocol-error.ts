import { ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { asBrokerError, type BrokerError, type ErrorKind } from "../../contract/errors.js";
import type { BackendProtocolError } from "../../sources/mcp/errors.js";
import { REST_STATUS } from "../rest/status.js";

/**
 * The error profiles of DESIGN.md: `mcp` (the specification) and `emcp` (the
 * eMCP contract, on the endpoint of an eMCP toolset), where invalid arguments
 * and unknown tools or models are protocol errors, not tool results.
 */
export type ErrorProfile = "mcp" | "emcp";

/** JSON-RPC codes of the error kinds, where a failure is a protocol error. */
const CODES: Record<ErrorProfile, Partial<Record<ErrorKind, number>>> = {
  mcp: { invalid_params: ErrorCode.InvalidParams, not_found: ErrorCode.InvalidParams },
  emcp: { invalid_params: ErrorCode.InvalidParams, not_found: ErrorCode.MethodNotFound },
};

/** Refusals by policy: HTTP statuses in REST, so errors with that status in `data` in MCP. */
const REFUSALS = new Set<ErrorKind>([
  "unauthenticated",
  "forbidden",
  "rate_limited",
  "idempotency_conflict",
  "too_large",
]);

export function isRefusal(err: BrokerError): boolean {
  return REFUSALS.has(err.kind);
}

/**
 * A failure as the JSON-RPC error the SDK puts on the wire. A backend's own
 * error is relayed with its code, message and data unchanged; a policy refusal
 * is -32600 with its kind and HTTP status in `data`. The SDK takes `code`,
 * `message` and `data` from what is thrown (an McpError would prefix the
 * message once more).
 */
export function protocolError(
  err: unknown,
  profile: ErrorProfile = "mcp",
): Error & { code: number; data?: unknown } {
  const e = asBrokerError(err);
  const backend = e.details?.backend as BackendProtocolError | undefined;
  if (backend)
    return Object.assign(new Error(backend.message), { code: backend.code, data: backend.data });
  if (isRefusal(e)) {
    return Object.assign(new Error(e.message), {
      code: ErrorCode.InvalidRequest,
      data: { kind: e.kind, http_status: REST_STATUS[e.kind], ...e.details },
    });
  }
  if (e.details?.unsupported === true)
    return Object.assign(new Error(e.message), { code: ErrorCode.MethodNotFound });
  return Object.assign(new Error(e.message), {
    code: CODES[profile][e.kind] ?? ErrorCode.InternalError,
  });
}
