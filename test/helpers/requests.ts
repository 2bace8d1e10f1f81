import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { ALL_SCOPES } from "../../src/auth/scopes.js";
import type { CallContext, Principal } from "../../src/contract/router.js";
import type { Next, Request, SourceRequest, ToolCall } from "../../src/policy/link.js";
import { compileArgsSchema } from "../../src/tree/args-validator.js";
import type { EffectiveLimits, ToolEntry } from "../../src/tree/tree.js";

export const everyone: Principal = { id: "anyone", scopes: ALL_SCOPES };

export function context(overrides: Partial<CallContext> = {}): CallContext {
  return {
    signal: new AbortController().signal,
    deadline: Date.now() + 60_000,
    principal: everyone,
    ...overrides,
  };
}

/** `toolCall`'s overrides for a call carrying idempotency key `key`. */
export function keyed(key: string): { ctx: CallContext } {
  return { ctx: context({ idempotencyKey: key }) };
}

const LIMITS: EffectiveLimits = { max_args_depth: 64 };

/** A tool call of a leaf at `path`, as the broker hands it to the chain. */
export function toolCall(
  args: Record<string, unknown> = {},
  overrides: Partial<Omit<ToolCall, "kind">> & { inputSchema?: Tool["inputSchema"] } = {},
): ToolCall {
  const path = overrides.path ?? "/src/tool";
  const inputSchema = overrides.inputSchema ?? { type: "object" };
  const leaf = {
    type: "tool",
    path,
    sourceId: "/src",
    toolName: "tool",
    flatName: "src__tool",
    summary: "",
    description: "",
    tool: { name: "tool", inputSchema },
    timeoutMs: overrides.timeoutMs ?? 60_000,
    limits: overrides.limits ?? LIMITS,
    renderMode: "mcp",
    validateArgs: compileArgsSchema(inputSchema),
  } satisfies ToolEntry;
  return {
    kind: "tools/call",
    path,
    source: "/src",
    leaf,
    args,
    ctx: overrides.ctx ?? context(),
    limits: overrides.limits ?? LIMITS,
    timeoutMs: overrides.timeoutMs ?? 60_000,
  };
}

/** A request of another kind to the source at `/src`. */
export function sourceRequest<R extends SourceRequest>(
  kind: R["kind"],
  params: R["params"],
  overrides: Partial<Pick<SourceRequest, "ctx" | "limits" | "timeoutMs" | "path">> = {},
): Request {
  return {
    kind,
    params,
    path: overrides.path ?? "/src",
    source: "/src",
    ctx: overrides.ctx ?? context(),
    limits: overrides.limits ?? LIMITS,
    timeoutMs: overrides.timeoutMs ?? 60_000,
  } as Request;
}

export function textResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

/** The end of a chain that answers with `result` and counts what reached it. */
export function answering(result: object | (() => Promise<object>)): Next & { reached: Request[] } {
  const reached: Request[] = [];
  const next = (async (request: Request) => {
    reached.push(request);
    return typeof result === "function" ? result() : result;
  }) as Next & { reached: Request[] };
  next.reached = reached;
  return next;
}
