import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
} from "@modelcontextprotocol/client";
import { BrokerError, type BackendProtocolError } from "../../contract/errors.js";
import { NOT_CONNECTED } from "../../net/connect-failure.js";
import { failureText, systemCodeOf } from "./failure-text.js";

/** A failure of a request to an MCP backend, as the broker's error kinds. */
export function backendError(err: unknown, source: string, what: string): BrokerError {
  if (err instanceof BrokerError) return err;
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.ConnectionClosed)
      return new BrokerError(
        "unavailable",
        `source ${source} closed its connection during ${what}; it is being restarted`,
        { source },
      );
    if (err.code === SdkErrorCode.RequestTimeout)
      return new BrokerError("timeout", `source ${source} did not answer ${what} in time`, {
        source,
      });
  }
  if (!(err instanceof ProtocolError)) {
    return new BrokerError("unavailable", `source ${source} failed ${what}: ${failureText(err)}`, {
      source,
    });
  }
  // The message as it came over the wire: the 2.x SDK adds nothing to it.
  const said = err.message;
  const backend: BackendProtocolError =
    err.data === undefined
      ? { code: err.code, message: said }
      : { code: err.code, message: said, data: err.data };
  switch (err.code) {
    case ProtocolErrorCode.InvalidParams:
      return new BrokerError("invalid_params", `source ${source} rejected ${what}: ${said}`, {
        source,
        backend,
      });
    case ProtocolErrorCode.MethodNotFound:
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
  if (err instanceof SdkHttpError) return err.status === 404;
  if (err instanceof SdkError) return err.code === SdkErrorCode.ConnectionClosed;
  const code = (err as { cause?: { code?: string } })?.cause?.code;
  return err instanceof TypeError || code === "ECONNREFUSED" || code === "ECONNRESET";
}

/** Whether a failed request surely never reached the backend: its connection was never made. */
export function neverSent(err: unknown): boolean {
  const code = systemCodeOf(err);
  return code !== undefined && NOT_CONNECTED.has(code);
}
