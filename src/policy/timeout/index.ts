import { BrokerError } from "../../contract/errors.js";
import type { Link } from "../chain.js";

/**
 * Gives each call the tool's `timeout` (seconds, from `tool_overrides` or the
 * config default): when it passes, the call's signal is aborted, so the source
 * cancels it at the backend, and the caller gets a `timeout` error naming the
 * limit, even if the source does not stop.
 *
 * @example
 * compose([timeout()], callSource)
 */
export function timeout(): Link {
  return async function timeoutLink(call, next) {
    const ms = call.leaf.timeoutMs;
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(call.ctx.signal.reason);
    call.ctx.signal.addEventListener("abort", onOuterAbort, { once: true });
    if (call.ctx.signal.aborted) onOuterAbort();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // Built only when it fires: an Error captures a stack, too dear for every call.
        const error = new BrokerError(
          "timeout",
          `${call.path} did not finish within its timeout of ${ms / 1000} s; it was cancelled (raise "timeout" in tool_overrides if it needs longer)`,
          { path: call.path, timeout_s: ms / 1000 },
        );
        controller.abort(error);
        reject(error);
      }, ms);
    });
    try {
      const ctx = {
        ...call.ctx,
        signal: controller.signal,
        deadline: Math.min(call.ctx.deadline, Date.now() + ms),
      };
      return await Promise.race([next({ ...call, ctx }), expired]);
    } finally {
      clearTimeout(timer);
      call.ctx.signal.removeEventListener("abort", onOuterAbort);
    }
  };
}
