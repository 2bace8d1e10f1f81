import { z } from "zod";
import { BrokerError } from "../contract/errors.js";
import { nestsDeeperThan } from "../contract/json-depth.js";
import type { HostAllowlist } from "../net/host-allowlist.js";
import { postJson } from "../net/guarded-request.js";
import { ServiceFailure } from "./service-failure.js";
import {
  ExecutionFailure,
  type HealthReport,
  type ServiceCall,
  type ToolService,
} from "./tool-service.js";
import type { ToolDefinition } from "./tool-definition.js";

/** A JSON-RPC 2.0 response, as a service must send it. */
const RpcResponse = z
  .looseObject({
    jsonrpc: z.literal("2.0"),
    result: z.unknown().optional(),
    error: z
      .looseObject({ code: z.int(), message: z.string(), data: z.unknown().optional() })
      .optional(),
  })
  .refine((r) => "result" in r !== (r.error !== undefined), "exactly one of result and error");

/** The protocol's error `data`: `{call_id, error_type, details}`, each optional here. */
const ErrorData = z.looseObject({
  error_type: z.string().optional(),
  details: z.string().optional(),
});

const CallResult = z.looseObject({ data: z.unknown() });

const HealthResult = z.looseObject({
  status: z.string(),
  version: z.string().optional(),
  capabilities: z.array(z.string()).optional(),
  last_error: z.string().nullable().optional(),
});

/** What a service may put in an error the broker relays: its own words, bounded. */
const MAX_RELAYED_CHARS = 1000;
/**
 * The deepest JSON a service may answer: what the broker does with an
 * answer (serialize it, redact it) recurses, and 100,000 levels overflowed
 * the stack (an HTTP 500). As deep as redaction reads.
 */
const MAX_ANSWER_DEPTH = 512;

export interface HttpServiceOptions {
  readonly allow: HostAllowlist;
  readonly maxResponseBytes: number;
}

/**
 * A registered tool service reached over HTTP: the broker speaks to it the
 * registry protocol itself, `tools/call` to its `endpoint` and `health/check` to
 * its `health_check_url`.
 */
export class HttpToolService implements ToolService {
  private nextId = 1;

  constructor(
    private readonly tool: ToolDefinition,
    private readonly options: HttpServiceOptions,
  ) {}

  async call(call: ServiceCall): Promise<unknown> {
    const answer = await this.post(this.tool.endpoint, "tools/call", call.signal, {
      tool_name: this.tool.name,
      function_name: call.functionName,
      arguments: call.args,
      call_id: call.callId,
      timeout: call.timeoutS,
    });
    if (answer.error) throw this.callError(answer.error);
    const result = CallResult.safeParse(answer.result);
    if (!result.success || !("data" in result.data)) {
      throw new ServiceFailure(
        `${origin(this.tool.endpoint)} answered tools/call without the protocol's result shape {call_id, status, data, execution_time_ms}`,
      );
    }
    return result.data.data;
  }

  async check(signal: AbortSignal): Promise<HealthReport> {
    const url = this.tool.health_check_url ?? this.tool.endpoint;
    const answer = await this.post(url, "health/check", signal, { tool_name: this.tool.name });
    if (answer.error) {
      // A service that answers JSON-RPC but has no health/check is up.
      if (answer.error.code === -32601) return { healthy: true };
      return { healthy: false, lastError: bounded(answer.error.message) };
    }
    const report = HealthResult.safeParse(answer.result);
    if (!report.success) {
      throw new ServiceFailure(
        `${origin(url)} answered health/check without the protocol's shape {status, response_time_ms, version, capabilities, last_error}`,
      );
    }
    const healthy = report.data.status.toLowerCase() === "healthy";
    return {
      healthy,
      version: report.data.version,
      capabilities: report.data.capabilities,
      lastError: healthy
        ? undefined
        : bounded(report.data.last_error ?? `status "${report.data.status}"`),
    };
  }

  private async post(
    url: string,
    method: string,
    signal: AbortSignal,
    params: Record<string, unknown>,
  ): Promise<z.infer<typeof RpcResponse>> {
    const json = await postJson(
      url,
      { jsonrpc: "2.0", method, params, id: this.nextId++ },
      { policy: this.options.allow, maxBytes: this.options.maxResponseBytes, signal },
    );
    if (nestsDeeperThan(json, MAX_ANSWER_DEPTH)) {
      throw new ServiceFailure(
        `${origin(url)} answered ${method} with JSON nested more than ${MAX_ANSWER_DEPTH} levels deep`,
      );
    }
    const answer = RpcResponse.safeParse(json);
    if (!answer.success) {
      throw new ServiceFailure(
        `${origin(url)} answered ${method} with JSON that is not JSON-RPC 2.0`,
      );
    }
    return answer.data;
  }

  /** The service's JSON-RPC error as the broker's: the protocol's codes keep their meaning. */
  private callError(error: { code: number; message: string; data?: unknown }): Error {
    const data = ErrorData.safeParse(error.data);
    const details = bounded((data.success ? data.data.details : undefined) ?? error.message);
    const said = `${this.tool.name} says: ${details}`;
    switch (error.code) {
      case -32004:
      case -32602:
        return new BrokerError("invalid_params", said, { service_code: error.code });
      case -32005:
        return new BrokerError("timeout", said, { service_code: error.code });
      case -32006:
        return new BrokerError("unavailable", said, { service_code: error.code });
      case -32007:
        return new BrokerError("rate_limited", said, { service_code: error.code });
      default:
        return new ExecutionFailure({
          errorType: (data.success ? data.data.error_type : undefined) ?? "execution_error",
          details,
        });
    }
  }
}

function origin(url: string): string {
  return new URL(url).origin;
}

function bounded(text: string): string {
  return text.length <= MAX_RELAYED_CHARS ? text : `${text.slice(0, MAX_RELAYED_CHARS)}…`;
}
