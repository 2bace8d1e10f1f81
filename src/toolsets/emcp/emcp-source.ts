import type {
  CallToolResult,
  Implementation,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type { CallContext, SourceStatus, SupervisedRouter } from "../../contract/router.js";
import { packageVersion } from "../../contract/version.js";
import type { EmcpSourceConfig } from "../../config/schema.js";
import { inspectCmsDatabase, type CmsDatabase } from "./cms-database.js";
import { openDatabase } from "./open-database.js";
import { MODEL_NAMES } from "./models.js";
import { modelGet } from "./tools/model-get.js";
import { modelList } from "./tools/model-list.js";
import { DEFAULT_EMCP_LIMITS, type EmcpLimits } from "./tools/arguments.js";
import { contentAncestors } from "./tools/content-ancestors.js";
import { contentChildren } from "./tools/content-children.js";
import { contentDescendants } from "./tools/content-descendants.js";
import { contentNeighbors } from "./tools/content-neighbors.js";
import { contentRange } from "./tools/content-ranges.js";
import { contentRootTree } from "./tools/content-root-tree.js";
import { contentSiblingSide } from "./tools/content-sibling-sides.js";
import { contentSiblings } from "./tools/content-siblings.js";
import { contentGet } from "./tools/content-get.js";
import { contentSearch } from "./tools/content-search.js";
import { TOOLSET_VERSION } from "./tools/responses.js";
import type { EmcpTool } from "./tools/tool.js";

/**
 * The eMCP toolset over an Evolution CMS database, read-only, as a source:
 * its tools are the contract's `evo.*` tools, answered from the database
 * through Kysely with every value bound and every identifier from a fixed list.
 */
export class EmcpSource implements SupervisedRouter {
  private cms: CmsDatabase | null = null;
  private lastError: string | undefined;
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
    this.tools = new Map(tools.map((t) => [t.definition.name, t]));
  }

  async start(): Promise<void> {
    const opened = openDatabase(this.config.database, {
      prefix: this.config.table_prefix ?? "evo_",
      readOnly: true,
    });
    const { db } = opened;
    try {
      await db.selectFrom("site_content").select("id").limit(1).execute();
      this.cms = await inspectCmsDatabase(opened);
    } catch (err) {
      await db.destroy().catch(() => undefined);
      this.lastError = (err as Error).message;
      throw new BrokerError(
        "unavailable",
        `source ${this.name} cannot read the Evolution CMS database: ${this.lastError}`,
        {
          source: this.name,
        },
      );
    }
    this.lastError = undefined;
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

  status(): SourceStatus {
    return { up: this.cms !== null, restarts: 0, lastError: this.lastError };
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
