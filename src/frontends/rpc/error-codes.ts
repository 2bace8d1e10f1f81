import type { ContentfulStatusCode } from "hono/utils/http-status";
import { HTTP_STATUS, type BrokerError, type ErrorKind } from "../../contract/errors.js";

/** JSON-RPC's own failures, before any method runs. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;

/** The registry's codes, with the messages the MCP Protocol Contracts give them. */
export const REGISTRY_CODES = {
  server_error: { code: -32000, message: "Server error" },
  execution_failed: { code: -32001, message: "Tool execution failed" },
  tool_not_found: { code: -32002, message: "Tool not found" },
  function_not_found: { code: -32003, message: "Function not found" },
  invalid_parameters: { code: -32004, message: "Invalid parameters" },
  timeout: { code: -32005, message: "Timeout" },
  service_unavailable: { code: -32006, message: "Service unavailable" },
  rate_limited: { code: -32007, message: "Rate limited" },
} as const;

export type RegistryErrorType = keyof typeof REGISTRY_CODES;

/**
 * Failures of the request itself rather than of the registry's work, answered
 * with their HTTP status on the registry endpoint too.
 */
const REFUSED_OVER_HTTP: ReadonlySet<ErrorKind> = new Set([
  "unauthenticated",
  "forbidden",
  "idempotency_conflict",
  "too_large",
]);

/** The registry's name for a broker error: which code it gets on `/rpc`. */
export function registryErrorType(error: BrokerError): RegistryErrorType {
  switch (error.kind) {
    case "invalid_params":
      return "invalid_parameters";
    case "not_found":
      return error.details?.function !== undefined ? "function_not_found" : "tool_not_found";
    case "timeout":
      return "timeout";
    case "unavailable":
      return "service_unavailable";
    case "rate_limited":
      return "rate_limited";
    case "execution_failed":
      return "execution_failed";
    default:
      return "server_error";
  }
}

/** The HTTP status a single request's failure is answered with; 200 for the registry's own codes. */
export function httpStatusOf(error: BrokerError): ContentfulStatusCode {
  return REFUSED_OVER_HTTP.has(error.kind) ? HTTP_STATUS[error.kind] : 200;
}
