import type {
  CallToolResult,
  Implementation,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type { CallContext, Router } from "../../contract/router.js";
import { packageVersion } from "../../contract/version.js";
import type { EmcpSourceConfig } from "./config.js";
import type { CmsDatabase } from "../../toolsets/emcp/cms-database.js";
import { TOOLSET_VERSION } from "../../toolsets/emcp/tools/responses.js";
import type { EmcpTool } from "../../toolsets/emcp/tools/tool.js";

/**
 * The eMCP toolset over an Evolution CMS database, read-only, as a source:
 * its tools are the contract's `evo.*` tools, answered from the database
 * through Kysely with every value bound and every identifier from a fixed list.
 */
export class EmcpSource implements Router {
  private cms: CmsDatabase | null = null;
  /** Made at the first start, with the module that has them. */
  private tools = new Map<string, EmcpTool>();

  constructor(
    readonly name: string,
    private readonly config: EmcpSourceConfig,
    private readonly log: Logger,
  ) {}

  /** Opens the database and looks at what it has; a file or server that is not there yet fails. */
  async start(): Promise<void> {
    try {
      const toolset = await import("./emcp-toolset.js");
      if (this.tools.size === 0) this.tools = toolset.emcpTools(this.config);
      this.cms = await toolset.openCms(this.config);
    } catch (err) {
      throw new BrokerError(
        "unavailable",
        `source ${this.name} cannot read the Evolution CMS database: ${(err as Error).message}`,
        { source: this.name },
      );
    }
    this.log.info(
      {
        source: this.name,
        tools: this.tools.size,
        tree: this.cms.tree.kind,
        tags: this.cms.hasTags,
      },
      "source up",
    );
  }

  instructions(): string | undefined {
    return "Evolution CMS content and models, read-only. Lists need limit; pages never overlap.";
  }

  /** The contract's metadata: serverInfo.platform and capabilities.evo. */
  serverInfo(): Implementation {
    return {
      name: "eMCP",
      version: packageVersion,
      platform: "eMCP",
      platformVersion: packageVersion,
    } as Implementation;
  }

  capabilities(): ServerCapabilities {
    return { tools: {}, evo: { toolsetVersion: TOOLSET_VERSION } } as ServerCapabilities;
  }

  async listTools(): Promise<Tool[]> {
    return [...this.tools.values()].map((t) => t.definition);
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    _ctx: CallContext,
  ): Promise<CallToolResult> {
    if (!this.cms)
      throw new BrokerError("unavailable", `source ${this.name} is not connected to its database`, {
        source: this.name,
      });
    const tool = this.tools.get(name);
    if (!tool) throw new BrokerError("not_found", `unknown tool "${name}"`, { tool: name });
    return tool.run(this.cms, args);
  }

  async close(): Promise<void> {
    const cms = this.cms;
    this.cms = null;
    await cms?.db.destroy();
  }
}
