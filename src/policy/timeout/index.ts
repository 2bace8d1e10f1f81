import { BrokerError } from "../../contract/errors.js";
import type { CallContext, CallerContext } from "../../contract/router.js";
import type { Link } from "../link.js";

/**
 * A caller's context with its deadline: the timeout it asked for, else the
 * one in force at the path. Frontends set none of their own; the timeout
 * link below enforces it.
 */
export function withDeadline(ctx: CallerContext, timeoutMs: number): CallContext {
  return { ...ctx, deadline: Date.now() + (ctx.timeoutMs ?? timeoutMs) };
}

/**
 * Gives each request the timeout in force at its path (a tool's `timeout`
 * from `tool_overrides`, else `limits.timeout_s` of the nearest node, else the
 * config default), or the one its caller asked for (the registry's
 * `timeout`): when it passes, the request's signal is aborted, so the
 * source cancels it at the backend, and the caller gets a `timeout` error
 * naming the limit, even if the source does not stop.
 *
 * @example
 * compose([timeout()], callSource)
 */
export function timeout(): Link {
  return async function timeoutLink(request, next) {
    const asked = request.ctx.timeoutMs;
    const ms = asked ?? request.timeoutMs;
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(request.ctx.signal.reason);
    request.ctx.signal.addEventListener("abort", onOuterAbort, { once: true });
    if (request.ctx.signal.aborted) onOuterAbort();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // Built only when it fires: an Error captures a stack, too dear for every request.
        const what =
          request.kind === "tools/call" ? request.path : `${request.kind} at ${request.path}`;
        const setting =
          asked !== undefined
            ? "the timeout of the request"
            : request.kind === "tools/call"
              ? '"timeout" in tool_overrides'
              : "limits.timeout_s of the node";
        const error = new BrokerError(
          "timeout",
          `${what} did not finish within ${asked !== undefined ? "the timeout asked for" : "its timeout"} of ${ms / 1000} s; it was cancelled (raise ${setting} if it needs longer)`,
          { path: request.path, timeout_s: ms / 1000 },
        );
        // Settled first, so the caller gets this whatever the source throws once aborted.
        reject(error);
        controller.abort(error);
      }, ms);
    });
    try {
      const ctx = {
        ...request.ctx,
        signal: controller.signal,
        deadline: Math.min(request.ctx.deadline, Date.now() + ms),
      };
      return await Promise.race([next({ ...request, ctx }), expired]);
    } finally {
      clearTimeout(timer);
      request.ctx.signal.removeEventListener("abort", onOuterAbort);
    }
  };
}
