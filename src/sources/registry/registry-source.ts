import type {
  CallToolResult,
  Implementation,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { BrokerError } from "../../contract/errors.js";
import type { CallContext, ChangeKind, Router } from "../../contract/router.js";
import type { ToolRegistry } from "../../registry/tool-registry.js";
import type { CallOutcome } from "../../registry/service-runtime.js";

/**
 * One registered tool service as a source: its functions are the tools, and
 * a call goes to the service through the registry, its breaker and its
 * timeouts. The registration is read afresh on every request, so a new
 * version of the definition shows as a change of tools, not a restart.
 */
export class RegistrySource implements Router {
  private readonly changeListeners = new Set<(what: ChangeKind) => void>();
  private readonly downListeners = new Set<(reason: string) => void>();
  private readonly stopListening: () => void;
  private seen: string | undefined;

  constructor(
    readonly name: string,
    private readonly toolName: string,
    private readonly registry: ToolRegistry,
  ) {
    this.stopListening = registry.onChange(() => {
      const now = registry.runtime(toolName)?.tool.toolId;
      if (now === this.seen) return;
      const was = this.seen;
      this.seen = now;
      if (now === undefined && was !== undefined) {
        for (const listener of this.downListeners) listener(`tool ${toolName} was unregistered`);
      } else {
        for (const listener of this.changeListeners) listener("tools");
      }
    });
  }

  async start(): Promise<void> {
    const runtime = this.registry.runtime(this.toolName);
    if (!runtime) {
      throw new BrokerError(
        "unavailable",
        `no tool service named "${this.toolName}" is registered; it comes up once one registers (tools/register on /rpc)`,
        { tool: this.toolName },
      );
    }
    this.seen = runtime.tool.toolId;
  }

  instructions(): string | undefined {
    return this.registry.runtime(this.toolName)?.tool.definition.description || undefined;
  }

  capabilities(): ServerCapabilities {
    return { tools: { listChanged: true } };
  }

  serverInfo(): Implementation | undefined {
    const tool = this.registry.runtime(this.toolName)?.tool;
    return (
      tool && { name: tool.definition.name, version: tool.definition.version ?? `v${tool.version}` }
    );
  }

  async listTools(): Promise<Tool[]> {
    const tool = this.registry.runtime(this.toolName)?.tool;
    return (tool?.definition.functions ?? []).map((fn) => ({
      name: fn.name,
      description: fn.description,
      inputSchema: { type: "object", ...fn.parameters } as Tool["inputSchema"],
    }));
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    const runtime = await this.registry.find(this.toolName);
    return asCallResult(
      await runtime.call(name, args, {
        callId: ctx.callId,
        signal: ctx.signal,
        deadline: ctx.deadline,
      }),
    );
  }

  onChange(listener: (what: ChangeKind) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  onDown(listener: (reason: string) => void): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.stopListening();
  }
}

/**
 * The service's `data` as JSON text (and as structured content when it is an
 * object), so `/rpc` gives back exactly what the service sent; an execution
 * failure as an error result with the seed's `error_type` and `details`.
 */
function asCallResult(outcome: CallOutcome): CallToolResult {
  if (!outcome.ok) {
    const { errorType, details } = outcome.error;
    return {
      isError: true,
      content: [{ type: "text", text: `${errorType}: ${details}` }],
      structuredContent: { error_type: errorType, details },
    };
  }
  const data = outcome.data === undefined ? null : outcome.data;
  const structured =
    data !== null && typeof data === "object" && !Array.isArray(data)
      ? { structuredContent: data as Record<string, unknown> }
      : {};
  return { content: [{ type: "text", text: JSON.stringify(data) }], ...structured };
}
