import type { Implementation, ServerCapabilities, Tool } from "@modelcontextprotocol/server";
import { reaches } from "../auth/scopes.js";
import { BrokerError, type ErrorProfile } from "../contract/errors.js";
import type { CacheHint, Principal } from "../contract/router.js";
import { didYouMean } from "../contract/did-you-mean.js";
import { hasInvisibleCharacters } from "../tree/leaf-segment.js";
import { joinPath } from "../tree/path.js";
import type { Mount } from "../tree/skeleton.js";
import type { NodeEntry, ToolEntry, Tree } from "../tree/tree.js";
import type { SourceIntroduction } from "./supervisor.js";

/**
 * One source as a frontend may see it, to serve it as itself (`/mcp/<name>`)
 * or to qualify its resources and prompts in `/mcp`: who it says it is, and
 * its tools as the tree mounts them. Requests to it go through the broker.
 */
export class SourceView {
  constructor(
    private readonly mount: Mount,
    readonly errorProfile: ErrorProfile,
    private readonly introduction: SourceIntroduction,
    private readonly tree: Tree,
  ) {}

  get name(): string {
    return this.mount.name;
  }

  /** The node it is mounted at. */
  get path(): string {
    return this.mount.id;
  }

  /** What the config (or the backend's instructions) says its node holds. */
  summary(): string | undefined {
    return (this.tree.get(this.mount.id) as NodeEntry | undefined)?.summary || undefined;
  }

  serverInfo(): Implementation | undefined {
    return this.introduction.serverInfo;
  }

  instructions(): string | undefined {
    return this.introduction.instructions;
  }

  capabilities(): ServerCapabilities {
    return this.introduction.capabilities;
  }

  /** How long the backend said its tool list may be cached, if it said. */
  toolsCacheHint(): CacheHint | undefined {
    return this.introduction.toolsCacheHint;
  }

  /**
   * The backend's tools as it described them, those the filter lets through,
   * but for names holding invisible characters (controls, bidi overrides,
   * zero-width), which no client should be shown: the tree mounts those
   * escaped, and they are called there.
   */
  tools(): Tool[] {
    return this.leaves()
      .filter((leaf) => this.lists(leaf))
      .map((leaf) => leaf.tool);
  }

  /** The leaf of a backend tool, for `broker.call`; `not_found` if filtered out or unknown. */
  leaf(toolName: string): ToolEntry {
    const leaf = hasInvisibleCharacters(toolName)
      ? undefined
      : this.tree.toolOfSource(this.mount.id, toolName);
    if (!leaf) {
      const near = this.tree
        .nearLeaves(joinPath(this.mount.id, toolName), (l) => this.lists(l))
        .map((l) => l.toolName);
      throw new BrokerError(
        "not_found",
        `unknown tool "${toolName}"${didYouMean(near)}; tools/list shows the tools there are`,
        { tool: toolName },
      );
    }
    return leaf;
  }

  /** Whether a caller may see what the source offers besides its tools (to list it). */
  visibleTo(principal: Principal): boolean {
    return reaches(principal, "describe", this.mount.id);
  }

  /** Whether tools/list shows this leaf of the tree as one of this source's tools. */
  private lists(leaf: ToolEntry): boolean {
    return leaf.sourceId === this.mount.id && !hasInvisibleCharacters(leaf.toolName);
  }

  private leaves(): ToolEntry[] {
    return this.tree.tools().filter((leaf) => leaf.sourceId === this.mount.id);
  }
}
