import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { BrokerError, type BackendProtocolError } from "../../contract/errors.js";

/** A failure of a request to an MCP backend, as the broker's error kinds. */
export function backendError(err: unknown, source: string, what: string): BrokerError {
  if (err instanceof BrokerError) return err;
  if (!(err instanceof McpError)) {
    return new BrokerError(
      "unavailable",
      `source ${source} failed ${what}: ${(err as Error)?.message ?? String(err)}`,
      { source },
    );
  }
  // The SDK prefixes "MCP error <code>: " to what came over the wire.
  const said = err.message.replace(/^MCP error -?\d+: /, "");
  const backend: BackendProtocolError =
    err.data === undefined
      ? { code: err.code, message: said }
      : { code: err.code, message: said, data: err.data };
  switch (err.code) {
    case ErrorCode.ConnectionClosed:
      return new BrokerError(
        "unavailable",
        `source ${source} closed its connection during ${what}; it is being restarted`,
        {
          source,
        },
      );
    case ErrorCode.RequestTimeout:
      return new BrokerError("timeout", `source ${source} did not answer ${what} in time`, {
        source,
      });
    case ErrorCode.InvalidParams:
      return new BrokerError("invalid_params", `source ${source} rejected ${what}: ${said}`, {
        source,
        backend,
      });
    case ErrorCode.MethodNotFound:
      return new BrokerError("not_found", `source ${source} does not support ${what}`, {
        source,
        backend,
      });
    default:
      return new BrokerError("execution_failed", `source ${source} failed ${what}: ${said}`, {
        source,
        backend,
      });
  }
}

/** Whether a failed request means the backend is gone (and the session must be reopened). */
export function isConnectionLost(err: unknown): boolean {
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed;
  if (err instanceof StreamableHTTPError) return err.code === 404;
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  return err instanceof TypeError || code === "ECONNREFUSED" || code === "ECONNRESET";
}
