import type {
  CompleteRequest,
  GetPromptRequest,
  ListPromptsRequest,
  ListResourcesRequest,
  ListResourceTemplatesRequest,
  LoggingLevel,
  ReadResourceRequest,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ToolEntry, Tree } from "../tree/tree.js";
import type { Mount } from "../tree/skeleton.js";
import { BrokerError } from "../contract/errors.js";
import { reaches } from "../auth/scopes.js";
import type { CallContext, Principal, SupervisedRouter } from "../contract/router.js";

/**
 * One source as its own MCP server, for `/mcp/<name>`: the backend's identity
 * and the requests that are not tool calls, passed through; its tools are the
 * tree's leaves of that source under the backend's own names, called through
 * the broker and its policy like any other call.
 */
export class SourceRelay {
  constructor(
    private readonly mount: Mount,
    private readonly router: SupervisedRouter,
    private readonly tree: () => Tree,
  ) {}

  get name(): string {
    return this.mount.name;
  }

  /** The error profile of the source's own endpoint: `emcp` for an eMCP toolset (DESIGN.md). */
  get errorProfile(): "mcp" | "emcp" {
    return this.mount.source.backend === "emcp" ? "emcp" : "mcp";
  }

  serverInfo() {
    return this.router.serverInfo?.();
  }

  instructions() {
    return this.router.instructions();
  }

  capabilities() {
    return this.router.capabilities();
  }

  /** The backend's tools as it described them, those the filter lets through. */
  tools(): Tool[] {
    return this.leaves().map((leaf) => leaf.tool);
  }

  /** The leaf of a backend tool, for `broker.call`; `not_found` if filtered out or unknown. */
  leaf(toolName: string): ToolEntry {
    const leaf = this.leaves().find((l) => l.toolName === toolName);
    if (!leaf) {
      throw new BrokerError(
        "not_found",
        `unknown tool "${toolName}"; tools/list shows the tools there are`,
        {
          tool: toolName,
        },
      );
    }
    return leaf;
  }

  /** Whether a caller may use what the source offers besides its tools. */
  visibleTo(principal: Principal): boolean {
    return reaches(principal, "describe", this.mount.id);
  }

  listResources(params: ListResourcesRequest["params"], ctx: CallContext) {
    return this.need("listResources", "resources", ctx)(params, ctx);
  }
  listResourceTemplates(params: ListResourceTemplatesRequest["params"], ctx: CallContext) {
    return this.need("listResourceTemplates", "resources", ctx)(params, ctx);
  }
  readResource(params: ReadResourceRequest["params"], ctx: CallContext) {
    return this.need("readResource", "resources", ctx)(params, ctx);
  }
  subscribe(uri: string, ctx: CallContext) {
    return this.need("subscribe", "resource subscriptions", ctx)(uri, ctx);
  }
  unsubscribe(uri: string, ctx: CallContext) {
    return this.need("unsubscribe", "resource subscriptions", ctx)(uri, ctx);
  }
  listPrompts(params: ListPromptsRequest["params"], ctx: CallContext) {
    return this.need("listPrompts", "prompts", ctx)(params, ctx);
  }
  getPrompt(params: GetPromptRequest["params"], ctx: CallContext) {
    return this.need("getPrompt", "prompts", ctx)(params, ctx);
  }
  complete(params: CompleteRequest["params"], ctx: CallContext) {
    return this.need("complete", "completion", ctx)(params, ctx);
  }
  setLoggingLevel(level: LoggingLevel, ctx: CallContext) {
    return this.need("setLoggingLevel", "logging", ctx)(level, ctx);
  }

  async endSession(session: string): Promise<void> {
    await this.router.endSession?.(session);
  }

  private leaves(): ToolEntry[] {
    return this.tree()
      .tools()
      .filter((leaf) => leaf.sourceId === this.mount.id);
  }

  /**
   * The router's method, for a caller whose `describe` scope reaches the
   * source's node; `forbidden` otherwise, `not_found` if the source lacks it.
   */
  private need<K extends keyof SupervisedRouter>(
    method: K,
    what: string,
    ctx: CallContext,
  ): NonNullable<SupervisedRouter[K]> {
    if (!this.visibleTo(ctx.principal)) {
      throw new BrokerError(
        "forbidden",
        `token "${ctx.principal.id}" may not use the ${what} of ${this.mount.id}: no describe scope reaches it`,
        { source: this.mount.name, token: ctx.principal.id },
      );
    }
    const fn = this.router[method];
    if (typeof fn !== "function") {
      throw new BrokerError("not_found", `source ${this.mount.name} does not offer ${what}`, {
        source: this.mount.name,
        unsupported: true,
      });
    }
    return fn.bind(this.router) as NonNullable<SupervisedRouter[K]>;
  }
}
