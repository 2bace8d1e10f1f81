import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { BrokerError } from "../../core/errors.js";

/** A failure of a request to an MCP backend, as the broker's error kinds. */
export function backendError(err: unknown, source: string, what: string): BrokerError {
  if (err instanceof BrokerError) return err;
  if (err instanceof McpError) {
    switch (err.code) {
      case ErrorCode.ConnectionClosed:
        return new BrokerError(
          "unavailable",
          `source ${source} closed its connection during ${what}; it is being restarted`,
          { source },
        );
      case ErrorCode.RequestTimeout:
        return new BrokerError("timeout", `source ${source} did not answer ${what} in time`, {
          source,
        });
      case ErrorCode.InvalidParams:
        return new BrokerError(
          "invalid_params",
          `source ${source} rejected the arguments of ${what}: ${err.message}`,
          { source },
        );
      case ErrorCode.MethodNotFound:
        return new BrokerError("not_found", `source ${source} does not support ${what}`, {
          source,
        });
      default:
        return new BrokerError(
          "execution_failed",
          `source ${source} failed ${what}: ${err.message}`,
          { source, code: err.code },
        );
    }
  }
  return new BrokerError(
    "unavailable",
    `source ${source} failed ${what}: ${(err as Error)?.message ?? String(err)}`,
    { source },
  );
}
