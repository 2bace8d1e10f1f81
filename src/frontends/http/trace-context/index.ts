import { context, propagation } from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";

/**
 * Makes the caller's W3C trace context (the `traceparent` and `tracestate`
 * headers) the active one while a request is served, so the broker's spans
 * (and, through them, its backends') join the caller's trace. A request
 * whose MCP message carries `_meta.traceparent` is parented there instead.
 * Without an OpenTelemetry SDK started, extracting is the API's no-op.
 *
 * @example
 * app.use("*", traceContext());
 */
export function traceContext(): MiddlewareHandler {
  return async function traceContextMiddleware(c, next) {
    const traceparent = c.req.header("traceparent");
    if (traceparent === undefined) return next();
    const tracestate = c.req.header("tracestate");
    const carrier = tracestate === undefined ? { traceparent } : { traceparent, tracestate };
    await context.with(propagation.extract(context.active(), carrier), next);
  };
}
