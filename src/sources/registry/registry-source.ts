import type {
  CallToolResult,
  Implementation,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import type { CallContext, ChangeKind, Router } from "../../contract/router.js";
import type { ToolRegistry } from "../../registry/tool-registry.js";
import { toCallResult, toolsOf } from "../../registry/mcp-shapes.js";

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
    return toolsOf(this.registry.runtime(this.toolName)?.tool.definition);
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    const runtime = await this.registry.find(this.toolName);
    return toCallResult(
      await runtime.call(name, args, {
        callId: ctx.callId,
        caller: ctx.principal.id,
        callerTimeout: ctx.timeoutMs !== undefined,
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
