import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import {
  asBrokerError,
  type BackendProtocolError,
  type BrokerError,
  type ErrorKind,
  type ErrorProfile,
  HTTP_STATUS,
  REFUSAL_KINDS,
} from "../../../contract/errors.js";

/** JSON-RPC codes of the error kinds, where a failure is a protocol error. */
const CODES: Record<ErrorProfile, Partial<Record<ErrorKind, number>>> = {
  mcp: {
    invalid_params: ProtocolErrorCode.InvalidParams,
    not_found: ProtocolErrorCode.InvalidParams,
  },
  emcp: {
    invalid_params: ProtocolErrorCode.InvalidParams,
    not_found: ProtocolErrorCode.MethodNotFound,
  },
};

/** Refusals by policy: HTTP statuses in REST, so errors with that status in `data` in MCP. */
export function isRefusal(err: BrokerError): boolean {
  return REFUSAL_KINDS.has(err.kind);
}

/**
 * A failure as the JSON-RPC error the SDK puts on the wire. A backend's own
 * error is relayed with its code, message and data unchanged; a policy refusal
 * is -32600 with its kind and HTTP status in `data`.
 */
export function protocolError(err: unknown, profile: ErrorProfile = "mcp"): ProtocolError {
  const e = asBrokerError(err);
  const backend = e.details?.backend as BackendProtocolError | undefined;
  if (backend) return new ProtocolError(backend.code, backend.message, backend.data);
  if (isRefusal(e)) {
    return new ProtocolError(ProtocolErrorCode.InvalidRequest, e.message, {
      kind: e.kind,
      http_status: HTTP_STATUS[e.kind],
      ...e.details,
    });
  }
  if (e.details?.unsupported === true)
    return new ProtocolError(ProtocolErrorCode.MethodNotFound, e.message);
  const code = CODES[profile][e.kind];
  if (code !== undefined || e.kind === "internal")
    return new ProtocolError(code ?? ProtocolErrorCode.InternalError, e.message);
  // A timeout or a source that is down has no code of its own outside a tool result.
  return new ProtocolError(ProtocolErrorCode.InternalError, e.message, {
    kind: e.kind,
    ...e.details,
  });
}
