import { randomUUID } from "node:crypto";
import type {
  CallToolResult,
  Implementation,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/server";
import type { CallContext, Router } from "../../contract/router.js";
import { packageVersion } from "../../contract/version.js";
import { toCallResult, toolsOf } from "../../registry/mcp-shapes.js";
import { ExecutionFailure, type InProcessService } from "../../registry/tool-service.js";

/** A built-in toolset mounted in the tree: its functions are the tools, run in process. */
export class BuiltinSource implements Router {
  constructor(
    readonly name: string,
    private readonly toolset: InProcessService,
  ) {}

  async start(): Promise<void> {}

  instructions(): string | undefined {
    return this.toolset.definition.description || undefined;
  }

  capabilities(): ServerCapabilities {
    return { tools: {} };
  }

  serverInfo(): Implementation {
    return { name: this.toolset.definition.name, version: packageVersion };
  }

  async listTools(): Promise<Tool[]> {
    return toolsOf(this.toolset.definition);
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    try {
      const data = await this.toolset.call({
        functionName: name,
        args,
        callId: ctx.callId ?? randomUUID(),
        timeoutS: Math.max(0.001, (ctx.deadline - Date.now()) / 1000),
        signal: ctx.signal,
        caller: ctx.principal.id,
      });
      return toCallResult({ ok: true, data });
    } catch (err) {
      if (err instanceof ExecutionFailure) return toCallResult({ ok: false, error: err.error });
      throw err;
    }
  }

  /** The toolset belongs to the broker's registry, which closes it. */
  async close(): Promise<void> {}
}
