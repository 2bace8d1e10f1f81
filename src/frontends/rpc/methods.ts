import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { Broker } from "../../broker/broker.js";
import { BrokerError } from "../../contract/errors.js";
import { KEY_MEANT } from "../../contract/key-meant.js";
import { isJsonObject } from "../../contract/json-text.js";
import type { Principal } from "../../contract/router.js";
import { invalidRequest, parseRequest } from "../../broker/meta-api/parse-request.js";
import { RunRequest, SearchRequest } from "../../broker/meta-api/requests.js";

/** What a method of the registry endpoint is given besides its params. */
export interface MethodContext {
  readonly broker: Broker;
  readonly principal: Principal;
  readonly signal: AbortSignal;
  readonly idempotencyKey?: string | undefined;
}

/** A tool call's own id, for its answer and its errors, once known. */
export class CallFailure extends Error {
  override readonly name = "CallFailure";

  constructor(
    readonly callId: string,
    readonly error: BrokerError,
  ) {
    super(error.message);
  }
}

/** A call that ran and failed (-32001), with the protocol's `error_type` and `details`. */
export class ExecutionFailed extends Error {
  override readonly name = "ExecutionFailed";

  constructor(
    readonly callId: string,
    readonly errorType: string,
    readonly details: string,
  ) {
    super(details);
  }
}

const ToolName = z.string().min(1).max(64);

const CallParams = z.strictObject({
  tool_name: ToolName,
  function_name: z.string().min(1).max(64),
  arguments: z
    .record(z.string(), z.unknown(), { error: "expected an object of named arguments" })
    .default({}),
  call_id: z.string().min(1).max(200).optional(),
  timeout: z
    .number()
    .positive()
    .max(300)
    .optional()
    .describe("Seconds; in place of the function's own timeout."),
});

const RegisterParams = z.strictObject({ tool: z.unknown() });
const NameParams = z.strictObject({ tool_name: ToolName });
const ListParams = z.strictObject({ category: z.string().optional() });

type Method = (params: unknown, ctx: MethodContext) => Promise<unknown>;

/** The methods of `POST /rpc`: the tool registry protocol. */
export const METHODS: Record<string, Method> = {
  "tools/register": async (params, { broker, principal }) => {
    const { tool } = parseRequest(RegisterParams, params ?? {});
    return broker.registry.register(tool, principal);
  },

  "tools/unregister": async (params, { broker, principal }) => {
    const { tool_name } = parseRequest(NameParams, params ?? {});
    return broker.registry.unregister(tool_name, principal);
  },

  "tools/list": async (params, { broker, principal }) => {
    const { category } = parseRequest(ListParams, params ?? {});
    const tools = await broker.registry.list(principal);
    return { tools: category === undefined ? tools : tools.filter((t) => t.category === category) };
  },

  /** meta_search over the whole tree, registered tools and mounted sources alike. */
  "tools/search": async (params, { broker, principal, signal }) =>
    broker.search(parseRequest(SearchRequest, params ?? {}), principal, signal),

  /** meta_run: a script that calls many tools in one step, each call the caller's own. */
  "tools/run": async (params, { broker, principal, signal }) =>
    broker.run(parseRequest(RunRequest, params ?? {}), { principal, signal }),

  "health/check": async (params, { broker, principal }) => {
    const { tool_name } = parseRequest(NameParams, params ?? {});
    return broker.registry.check(tool_name, principal);
  },

  "tools/call": async (params, ctx) => {
    const parsed = CallParams.safeParse(params ?? {}, KEY_MEANT);
    // The answer carries the call's id even when other params are wrong.
    const callId = (parsed.success ? parsed.data.call_id : undefined) ?? randomUUID();
    try {
      if (!parsed.success) throw invalidRequest(parsed.error);
      const call = parsed.data;
      const started = performance.now();
      const path = await ctx.broker.registry.functionPath(
        call.tool_name,
        call.function_name,
        ctx.principal,
      );
      const out = await ctx.broker.call(path, call.arguments, {
        signal: ctx.signal,
        principal: ctx.principal,
        callId,
        timeoutMs: call.timeout === undefined ? undefined : call.timeout * 1000,
        idempotencyKey: ctx.idempotencyKey,
      });
      if (out.isError) throw executionFailed(callId, out.result);
      return {
        call_id: callId,
        status: "completed",
        data: dataOf(out.result),
        execution_time_ms: Math.round(performance.now() - started),
      };
    } catch (err) {
      if (err instanceof BrokerError) throw new CallFailure(callId, err);
      throw err;
    }
  },
};

/** What the service sent as `data`: its structured content, else its JSON text. */
function dataOf(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = result.content.find((c) => c.type === "text")?.text;
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function executionFailed(callId: string, result: CallToolResult): ExecutionFailed {
  const structured = isJsonObject(result.structuredContent) ? result.structuredContent : {};
  const text = result.content.find((c) => c.type === "text")?.text ?? "the tool reported an error";
  return new ExecutionFailed(
    callId,
    typeof structured.error_type === "string" ? structured.error_type : "execution_error",
    typeof structured.details === "string" ? structured.details : text,
  );
}
