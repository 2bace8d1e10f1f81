import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit as streamingBodyLimit } from "hono/body-limit";
import { BrokerError } from "../../../contract/errors.js";

/**
 * Refuses a request body over `maxBytes` with `too_large` (413). A body whose
 * length is declared is judged by its `Content-Length` alone, without
 * touching it: Hono's own limit opens the body as a web stream to look, which
 * costs every request; only a chunked body is counted as it streams.
 *
 * @example
 * app.use("*", bodyLimit(1024 * 1024));
 */
export function bodyLimit(maxBytes: number): MiddlewareHandler {
  const tooLarge = () => {
    throw bodyTooLarge(maxBytes);
  };
  const counting = streamingBodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async function bodyLimitMiddleware(c, next) {
    if (declaresLength(c)) {
      if (Number(c.req.header("content-length")) > maxBytes) tooLarge();
      return next();
    }
    return counting(c, next);
  };
}

/**
 * Whether a request declares its body's length: its body is then still
 * unread after the limit; a chunked one was buffered while counted.
 */
export function declaresLength(c: Context): boolean {
  return (
    c.req.header("content-length") !== undefined && c.req.header("transfer-encoding") === undefined
  );
}

/** The refusal of a body over `maxBytes`, wherever it is counted. */
export function bodyTooLarge(maxBytes: number): BrokerError {
  return new BrokerError(
    "too_large",
    `request body is larger than the limit of ${maxBytes} bytes`,
    {
      max_request_bytes: maxBytes,
    },
  );
}
