import { context } from "@opentelemetry/api";
import { BROKER_PATH, MCP_SESSION } from "../../telemetry/mcp-attributes.js";
import { servedOperation } from "../../telemetry/mcp-operation.js";
import type { Link, Request } from "../link.js";

/** What a request names: a tool, a prompt or a resource, or nothing. */
function targetOf(request: Request): string | undefined {
  if (request.kind === "tools/call") return request.leaf.toolName;
  if (request.kind === "prompts/get") return request.params.name;
  if (request.kind === "resources/read") return request.params.uri;
  return undefined;
}

/**
 * Puts each request in a span: a SERVER span where no served operation
 * encloses it (REST and `/rpc`, child of the caller's HTTP `traceparent`),
 * else an INTERNAL one under the MCP request's span, so that a meta tool's
 * span shows the leaf it reached. The span ends with the request's outcome
 * as `error.type`: `tool_error`, or the kind of the refusal, which names the
 * link that refused. Outermost, so every link's work is inside it.
 *
 * @example
 * compose([trace(), audit(write), authorize()], callSource)
 */
export function trace(): Link {
  return function traceLink(request, next) {
    return servedOperation(
      {
        method: request.kind,
        target: targetOf(request),
        attributes: {
          [BROKER_PATH]: request.path,
          ...(request.ctx.session ? { [MCP_SESSION]: request.ctx.session } : {}),
        },
      },
      context.active(),
      () => next(request),
    );
  };
}
