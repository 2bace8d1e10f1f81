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
import { inspectCmsDatabase, type CmsDatabase } from "../../toolsets/emcp/cms-database.js";
import { openDatabase, type OpenedDatabase } from "../../toolsets/emcp/open-database.js";
import { MODEL_NAMES } from "../../toolsets/emcp/models.js";
import { modelGet } from "../../toolsets/emcp/tools/model-get.js";
import { modelList } from "../../toolsets/emcp/tools/model-list.js";
import { DEFAULT_EMCP_LIMITS, type EmcpLimits } from "../../toolsets/emcp/tools/arguments.js";
import { contentAncestors } from "../../toolsets/emcp/tools/content-ancestors.js";
import { contentChildren } from "../../toolsets/emcp/tools/content-children.js";
import { contentDescendants } from "../../toolsets/emcp/tools/content-descendants.js";
import { contentNeighbors } from "../../toolsets/emcp/tools/content-neighbors.js";
import { contentRange } from "../../toolsets/emcp/tools/content-ranges.js";
import { contentRootTree } from "../../toolsets/emcp/tools/content-root-tree.js";
import { contentSiblingSide } from "../../toolsets/emcp/tools/content-sibling-sides.js";
import { contentSiblings } from "../../toolsets/emcp/tools/content-siblings.js";
import { contentGet } from "../../toolsets/emcp/tools/content-get.js";
import { contentSearch } from "../../toolsets/emcp/tools/content-search.js";
import { TOOLSET_VERSION } from "../../toolsets/emcp/tools/responses.js";
import type { EmcpTool } from "../../toolsets/emcp/tools/tool.js";
import { withCheckedArguments } from "../../toolsets/emcp/tools/checked-arguments.js";

/**
 * The eMCP toolset over an Evolution CMS database, read-only, as a source:
 * its tools are the contract's `evo.*` tools, answered from the database
 * through Kysely with every value bound and every identifier from a fixed list.
 */
export class EmcpSource implements Router {
  private cms: CmsDatabase | null = null;
  private readonly tools: Map<string, EmcpTool>;

  constructor(
    readonly name: string,
    private readonly config: EmcpSourceConfig,
    private readonly log: Logger,
  ) {
    const limits: EmcpLimits = {
      maxResultItems: config.max_result_items ?? DEFAULT_EMCP_LIMITS.maxResultItems,
      maxOffset: config.max_offset ?? DEFAULT_EMCP_LIMITS.maxOffset,
      maxDepth: config.max_depth ?? DEFAULT_EMCP_LIMITS.maxDepth,
    };
    const models = config.models ?? MODEL_NAMES;
    const tools = [
      contentSearch(limits),
      contentGet(limits),
      contentRootTree(limits),
      contentDescendants(limits),
      contentAncestors(limits),
      contentChildren(limits),
      contentSiblings(limits),
      contentNeighbors(limits),
      contentSiblingSide("prev", limits),
      contentSiblingSide("next", limits),
      contentRange("children", limits),
      contentRange("siblings", limits),
      modelList(limits, models),
      modelGet(limits, models),
    ];
    this.tools = new Map(tools.map((t) => [t.definition.name, withCheckedArguments(t)]));
  }

  /** Opens the database and looks at what it has; a file or server that is not there yet fails. */
  async start(): Promise<void> {
    let opened: OpenedDatabase | undefined;
    try {
      opened = openDatabase(this.config.database, {
        prefix: this.config.table_prefix ?? "evo_",
        readOnly: true,
      });
      await opened.db.selectFrom("site_content").select("id").limit(1).execute();
      this.cms = await inspectCmsDatabase(opened);
    } catch (err) {
      await opened?.db.destroy().catch(() => undefined);
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
    const tool = this.tools.get(name);
    if (!tool) throw new BrokerError("not_found", `unknown tool "${name}"`, { tool: name });
    if (!this.cms)
      throw new BrokerError("unavailable", `source ${this.name} is not connected to its database`, {
        source: this.name,
      });
    return tool.run(this.cms, args);
  }

  async close(): Promise<void> {
    const cms = this.cms;
    this.cms = null;
    await cms?.db.destroy();
  }
}
