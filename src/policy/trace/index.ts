import { context } from "@opentelemetry/api";
import { BROKER_PATH, BROKER_RUN, MCP_SESSION } from "../../telemetry/mcp-attributes.js";
import { observing, recordContent, servedOperation } from "../../telemetry/mcp-operation.js";
import { argumentsOf, type Link, type Next, type Request, type Result } from "../link.js";
import { redactValue, SENSITIVE_KEYS } from "../redact/redact.js";

/**
 * The standard opt-in of GenAI instrumentations: with it, a span also holds
 * the request's arguments and its result, both redacted.
 */
const CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

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
 * link that refused. Outermost, so every link's work is inside it. Neither
 * arguments nor results are recorded unless
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` asks for them,
 * and then redacted by the same keys as results.
 *
 * @example
 * compose([trace(["api_key"]), audit(write), authorize()], callSource)
 */
export function trace(
  redactKeys: readonly string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Link {
  const capture = env[CAPTURE_CONTENT] === "true";
  const keys = new Set([...SENSITIVE_KEYS, ...redactKeys].map((k) => k.toLowerCase()));
  return function traceLink(request, next) {
    if (!observing()) return next(request);
    return servedOperation(
      {
        method: request.kind,
        target: targetOf(request),
        attributes: {
          [BROKER_PATH]: request.path,
          ...(request.ctx.session ? { [MCP_SESSION]: request.ctx.session } : {}),
          ...(request.ctx.runId ? { [BROKER_RUN]: request.ctx.runId } : {}),
        },
      },
      context.active(),
      capture ? passRecording : pass,
      { request, next, keys },
    );
  };
}

interface Passing {
  readonly request: Request;
  readonly next: Next;
  readonly keys: ReadonlySet<string>;
}

/** Module-level, not closures: they run for every request. */
function pass({ request, next }: Passing): Promise<Result> {
  return next(request);
}

async function passRecording({ request, next, keys }: Passing): Promise<Result> {
  const result = await next(request);
  // The result comes back through the redact link already; the arguments do not.
  recordContent(redactValue(argumentsOf(request), keys, request.path), result);
  return result;
}
