import { BrokerError } from "../../contract/errors.js";
import { argumentsOf, type Link } from "../link.js";
import { resultBytes, UNMEASURABLE_BYTES } from "../result-bytes.js";

/**
 * The limits in force at the request's path (nearest of tool_overrides, node,
 * config): arguments over `max_request_bytes` are `too_large`; a tool's `limit`
 * argument over `max_result_items` is `invalid_params` naming the maximum; a
 * result of any kind whose serialization is over `max_result_bytes` (16 MiB
 * unless set) is `too_large` (HTTP 413).
 *
 * @example
 * compose([limits()], callSource)
 */
export function limits(): Link {
  return async function limitsLink(request, next) {
    const { max_request_bytes, max_result_items, max_result_bytes } = request.limits;
    if (max_request_bytes !== undefined) {
      const size = Buffer.byteLength(JSON.stringify(argumentsOf(request)) ?? "");
      if (size > max_request_bytes) {
        throw new BrokerError(
          "too_large",
          `the arguments of ${request.path} are ${size} bytes, over max_request_bytes of ${max_request_bytes}`,
          { max_request_bytes, size },
        );
      }
    }
    const limit = request.kind === "tools/call" ? request.args.limit : undefined;
    if (max_result_items !== undefined && typeof limit === "number" && limit > max_result_items) {
      throw new BrokerError(
        "invalid_params",
        `argument 'limit' is ${limit}, over the maximum of ${max_result_items} (max_result_items); page with a smaller limit`,
        { max_result_items },
      );
    }
    const result = await next(request);
    if (max_result_bytes !== undefined) {
      const size = resultBytes(result);
      if (size > max_result_bytes) {
        throw new BrokerError(
          "too_large",
          `the result of ${request.path} is ${size >= UNMEASURABLE_BYTES ? "more than 512 MiB" : `${size} bytes`}, over max_result_bytes of ${max_result_bytes}; ask for less (a smaller limit, fewer fields)`,
          { max_result_bytes, size },
        );
      }
    }
    return result;
  };
}
