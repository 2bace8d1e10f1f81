import type { Tool } from "@modelcontextprotocol/server";
import { compileArgsSchema } from "./args-validator.js";
import { DEFAULT_MAX_TOOLS, type Config, type Limits } from "../config/schema.js";
import { flatName } from "./flat-name.js";
import { leafSegment } from "./leaf-segment.js";
import { joinPath, parentOf } from "./path.js";
import type { Mount, Skeleton } from "./skeleton.js";
import { ToolFilter } from "./tool-filter.js";
import {
  Tree,
  type EffectiveLimits,
  type NodeEntry,
  type ToolEntry,
  type TreeEntry,
} from "./tree.js";

export const DEFAULT_TIMEOUT_S = 60;
/** Deep enough for any real arguments; shallow enough that nothing recursive overflows. */
export const DEFAULT_MAX_ARGS_DEPTH = 64;
/** A result larger than this, serialized, is refused unless a limit says otherwise (16 MiB). */
export const DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;

export interface BuiltTree {
  readonly tree: Tree;
  /** Tools left out, each with the reason; the caller decides if that is fatal. */
  readonly problems: string[];
  /** Config that names nothing or does not fit, likely typos: never fatal. */
  readonly warnings: string[];
}

/** Where a source's tool is mounted: its alias, or its name (escaped where MCP would not allow it). */
export function leafPathOf(
  mount: Mount,
  toolName: string,
): { readonly path: string; readonly escaped: boolean } {
  const alias = mount.source.path_aliases?.[toolName];
  const { segment, escaped } =
    alias === undefined ? leafSegment(toolName) : { segment: alias, escaped: false };
  return { path: joinPath(mount.id, segment), escaped };
}

/**
 * Mounts each source's tools under its node: `tools/list`, then `tool_filter`,
 * then `tool_overrides`, then `path_aliases`. A source whose tools are not known
 * (it is down) contributes its node only.
 */
export function buildTree(
  config: Config,
  skeleton: Skeleton,
  toolsBySource: ReadonlyMap<string, readonly Tool[]>,
): BuiltTree {
  const problems: string[] = [];
  const warnings: string[] = [];
  const entries = new Map<string, TreeEntry>();
  const nodeChildren = new Map<string, string[]>();
  for (const node of skeleton.nodes.values()) nodeChildren.set(node.path, [...node.children]);

  const leaves: ToolEntry[] = [];
  const leafPaths = new Set<string>();
  for (const mount of skeleton.mounts) {
    const listed = toolsBySource.get(mount.id);
    if (!listed) continue;
    const maxTools = mount.source.max_tools ?? DEFAULT_MAX_TOOLS;
    if (listed.length > maxTools) {
      warnings.push(
        `${mount.id} lists ${listed.length} tools; the first ${maxTools} are mounted (max_tools)`,
      );
    }
    const tools = listed.length > maxTools ? listed.slice(0, maxTools) : listed;
    const filter = new ToolFilter(mount.source.tool_filter);
    const overrides = mount.source.tool_overrides ?? {};
    const aliases = mount.source.path_aliases ?? {};
    const offered = new Set(tools.map((t) => t.name));
    for (const [field, names] of [
      ["tool_overrides", overrides],
      ["path_aliases", aliases],
    ] as const) {
      for (const name of Object.keys(names).filter((n) => offered.size > 0 && !offered.has(n))) {
        warnings.push(
          `${field} of ${mount.id} names tool "${name}", which the source does not offer`,
        );
      }
    }
    for (const tool of tools) {
      if (!filter.allows(tool.name)) continue;
      const override = overrides[tool.name] ?? {};
      const nearest = nearestLimits(config, skeleton, mount.id, override.limits);
      const { path, escaped } = leafPathOf(mount, tool.name);
      if (escaped) {
        warnings.push(
          `tool ${JSON.stringify(tool.name)} of ${mount.id} is mounted at ${path}: its name has characters outside A-Z a-z 0-9 _ . - (MCP's tool names), shown escaped; give it a path_aliases entry to name it`,
        );
      }
      if (skeleton.nodes.has(path) || leafPaths.has(path)) {
        problems.push(
          `tool "${tool.name}" of ${mount.id} would be at ${path}, which is taken; add a path_aliases entry`,
        );
        continue;
      }
      let validateArgs;
      try {
        validateArgs = compileArgsSchema(tool.inputSchema);
      } catch (err) {
        problems.push(
          `tool "${tool.name}" of ${mount.id} has an invalid inputSchema: ${(err as Error).message}`,
        );
        continue;
      }
      if (validateArgs.unchecked !== undefined) {
        warnings.push(
          `the arguments of ${path} are not checked by the broker, the backend checks them: ${validateArgs.unchecked}`,
        );
      }
      if (override.example_args !== undefined) {
        try {
          validateArgs(override.example_args);
        } catch (err) {
          warnings.push(
            `example_args of ${path} do not fit its args_schema: ${(err as Error).message}`,
          );
        }
      }
      const description = override.description ?? tool.description ?? "";
      leafPaths.add(path);
      leaves.push({
        type: "tool",
        path,
        sourceId: mount.id,
        toolName: tool.name,
        flatName: flatName(path),
        summary: override.summary ?? summarize(description) ?? tool.title ?? tool.name,
        description,
        tool,
        exampleArgs: override.example_args,
        maxOutputChars: override.max_output_chars ?? config.max_output_chars,
        timeoutMs: timeoutMs(config, nearest, override.timeout),
        limits: effective(nearest),
        renderMode: override.render_mode ?? config.render_mode ?? "mcp",
        validateArgs,
      });
    }
  }

  const flat = new Map<string, ToolEntry>();
  for (const leaf of leaves) {
    const clash = flat.get(leaf.flatName);
    if (clash) {
      problems.push(
        `${leaf.path} and ${clash.path} both get the flat tool name "${leaf.flatName}"; rename one with path_aliases`,
      );
      continue;
    }
    flat.set(leaf.flatName, leaf);
    entries.set(leaf.path, leaf);
    nodeChildren.get(leaf.sourceId)?.push(leaf.path);
  }
  for (const node of skeleton.nodes.values()) {
    const nearest = nearestLimits(config, skeleton, node.path, undefined);
    const entry: NodeEntry = {
      type: "node",
      path: node.path,
      summary: node.summary,
      description: node.description,
      children: nodeChildren.get(node.path) ?? [],
      mount: node.mount,
      limits: effective(nearest),
      timeoutMs: timeoutMs(config, nearest, undefined),
    };
    entries.set(node.path, entry);
  }
  return { tree: new Tree(entries, flat), problems, warnings };
}

/** The first sentence or line of a description, at most 160 characters. */
export function summarize(description: string): string | undefined {
  const firstLine = description.trim().split("\n")[0]?.trim() ?? "";
  if (firstLine === "") return undefined;
  const sentence = /^(.+?[.!?])(\s|$)/.exec(firstLine)?.[1] ?? firstLine;
  return sentence.length <= 160 ? sentence : `${sentence.slice(0, 159)}…`;
}

function effective(nearest: Limits): EffectiveLimits {
  return {
    max_request_bytes: nearest.max_request_bytes,
    max_result_items: nearest.max_result_items,
    max_result_bytes: nearest.max_result_bytes ?? DEFAULT_MAX_RESULT_BYTES,
    max_args_depth: nearest.max_args_depth ?? DEFAULT_MAX_ARGS_DEPTH,
  };
}

function timeoutMs(config: Config, nearest: Limits, toolTimeoutS: number | undefined): number {
  return (toolTimeoutS ?? nearest.timeout_s ?? config.timeout ?? DEFAULT_TIMEOUT_S) * 1000;
}

/** Each limit from the nearest place that sets it: the tool, its nodes upwards, the config. */
function nearestLimits(
  config: Config,
  skeleton: Skeleton,
  mountPath: string,
  tool: Limits | undefined,
): Limits {
  const layers: (Limits | undefined)[] = [tool];
  for (
    let path: string | undefined = mountPath;
    path !== undefined;
    path = path === "/" ? undefined : parentOf(path)
  ) {
    layers.push(skeleton.nodes.get(path)?.limits);
  }
  layers.push(config.limits);
  const pick = <K extends keyof Limits>(key: K): Limits[K] =>
    layers.find((l) => l?.[key] !== undefined)?.[key];
  return {
    max_request_bytes: pick("max_request_bytes"),
    max_result_items: pick("max_result_items"),
    max_result_bytes: pick("max_result_bytes"),
    timeout_s: pick("timeout_s"),
    max_args_depth: pick("max_args_depth"),
  };
}
