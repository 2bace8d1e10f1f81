import type { Tool } from "@modelcontextprotocol/server";
import type { ArgsValidator } from "./args-validator.js";
import { BrokerError } from "../contract/errors.js";
import type { RenderMode } from "../config/schema.js";
import { didYouMean } from "../contract/did-you-mean.js";
import { NearPaths } from "./near-paths.js";
import { normalizePath } from "./path.js";

/** The limits in force at a path: the nearest that sets each (tool, nodes upwards, config). */
export interface EffectiveLimits {
  readonly max_request_bytes?: number | undefined;
  readonly max_result_items?: number | undefined;
  readonly max_result_bytes?: number | undefined;
  /** Always set: arguments are checked for depth before anything reads them. */
  readonly max_args_depth: number;
}

export interface NodeEntry {
  readonly type: "node";
  readonly path: string;
  readonly summary?: string | undefined;
  readonly description?: string | undefined;
  /** Paths of the direct children, in config order then tool-list order. */
  readonly children: string[];
  /** Id of the source mounted here. */
  readonly mount?: string | undefined;
  /** What governs the requests to a source mounted here that are not tool calls. */
  readonly limits: EffectiveLimits;
  readonly timeoutMs: number;
}

export interface ToolEntry {
  readonly type: "tool";
  readonly path: string;
  readonly sourceId: string;
  /** The backend's own tool name; aliases never rename it. */
  readonly toolName: string;
  readonly flatName: string;
  readonly summary: string;
  readonly description: string;
  readonly tool: Tool;
  readonly exampleArgs?: Record<string, unknown> | undefined;
  readonly maxOutputChars?: number | undefined;
  readonly timeoutMs: number;
  /** The nearest limits: tool_overrides, then the nodes up to the root, then the config. */
  readonly limits: EffectiveLimits;
  readonly renderMode: RenderMode;
  readonly validateArgs: ArgsValidator;
}

export type TreeEntry = NodeEntry | ToolEntry;

/** An immutable snapshot of the tree; rebuilt whole and swapped, never patched. */
export class Tree {
  /** Each source's leaves by backend tool name, the first mounted where a name has several. */
  private readonly bySource = new Map<string, Map<string, ToolEntry>>();
  private nearPaths: NearPaths | undefined;

  constructor(
    private readonly entries: ReadonlyMap<string, TreeEntry>,
    private readonly flat: ReadonlyMap<string, ToolEntry>,
  ) {
    for (const leaf of flat.values()) {
      let leaves = this.bySource.get(leaf.sourceId);
      if (!leaves) this.bySource.set(leaf.sourceId, (leaves = new Map()));
      if (!leaves.has(leaf.toolName)) leaves.set(leaf.toolName, leaf);
    }
  }

  get(path: string): TreeEntry | undefined {
    return this.entries.get(path);
  }

  node(path: string): NodeEntry {
    const entry = this.lookup(path);
    if (entry.type !== "node") {
      throw new BrokerError(
        "invalid_params",
        `${entry.path} is a tool, not a node; use meta_desc or meta_call on it`,
        { path: entry.path },
      );
    }
    return entry;
  }

  tool(path: string): ToolEntry {
    const entry = this.lookup(path);
    if (entry.type !== "tool") {
      throw new BrokerError(
        "invalid_params",
        `${entry.path} is a node, not a tool; use meta_tree to list what is under it`,
        { path: entry.path },
      );
    }
    return entry;
  }

  /** The entry at a path as a caller wrote it: `/a/b/` and `/a//b` are `/a/b`. */
  lookup(path: string): TreeEntry {
    const normalized = normalizePath(path);
    if (normalized === null) {
      throw new BrokerError(
        "invalid_params",
        `path ${JSON.stringify(path)} is not an absolute path such as "/" or "/repo/read"`,
        { path },
      );
    }
    const entry = this.entries.get(normalized);
    if (!entry) throw absent(path);
    return entry;
  }

  children(node: NodeEntry): TreeEntry[] {
    return node.children
      .map((p) => this.entries.get(p))
      .filter((e): e is TreeEntry => e !== undefined);
  }

  /** Paths near one that is not here, those `offered` lets through (see NearPaths). */
  near(path: string, offered: (path: string) => boolean): string[] {
    this.nearPaths ??= new NearPaths(
      [...this.entries.values()].map((e) => [e.path, e.type === "tool" ? [e.toolName] : []]),
    );
    return this.nearPaths.near(path, offered);
  }

  /** Leaves near a tool asked for as the path `asked`, those `offered` lets through. */
  nearLeaves(asked: string, offered: (leaf: ToolEntry) => boolean): ToolEntry[] {
    const leafAt = (path: string) => {
      const entry = this.entries.get(path);
      return entry?.type === "tool" ? entry : undefined;
    };
    return this.near(asked, (path) => {
      const leaf = leafAt(path);
      return leaf !== undefined && offered(leaf);
    }).map((path) => leafAt(path)!);
  }

  toolByFlatName(name: string): ToolEntry | undefined {
    return this.flat.get(name);
  }

  tools(): ToolEntry[] {
    return [...this.flat.values()];
  }

  /** Whether any tool of the source is in the tree. */
  hasToolsOf(sourceId: string): boolean {
    return this.bySource.has(sourceId);
  }

  /** The leaf of a source's backend tool, found without a walk over every tool. */
  toolOfSource(sourceId: string, toolName: string): ToolEntry | undefined {
    return this.bySource.get(sourceId)?.get(toolName);
  }
}

/**
 * The answer for a path with nothing there, or with nothing the caller may
 * know of; `near` are paths the caller may have meant.
 */
export function absent(path: string, near: readonly string[] = []): BrokerError {
  return new BrokerError(
    "not_found",
    `no entry at path ${path}${didYouMean(near)}; use meta_tree to see what exists`,
    near.length === 0 ? { path } : { path, near: [...near] },
  );
}
