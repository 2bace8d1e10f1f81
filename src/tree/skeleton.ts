import type { Config, Limits, NodeConfig, SourceConfig } from "../config/schema.js";
import { joinPath, normalizePath, parentOf, splitPath } from "./path.js";

export interface SkeletonNode {
  path: string;
  limits?: Limits | undefined;
  summary?: string | undefined;
  description?: string | undefined;
  children: string[];
  mount?: string | undefined;
}

/** A source as mounted at a node: its id is the node's path. */
export interface Mount {
  readonly id: string;
  readonly name: string;
  readonly source: SourceConfig;
}

export interface Skeleton {
  readonly nodes: Map<string, SkeletonNode>;
  readonly mounts: Mount[];
}

/**
 * The config's nodes as a path → node map, with implicit intermediate nodes
 * (and the root) created, and the list of mounted sources. Problems are
 * returned as messages naming the JSON path of the offending node.
 */
export function buildSkeleton(config: Config, problems: string[]): Skeleton {
  const nodes = new Map<string, SkeletonNode>([["/", { path: "/", children: [] }]]);
  const mounts: Mount[] = [];

  const ensure = (path: string): SkeletonNode => {
    let node = nodes.get(path);
    if (node) return node;
    node = { path, children: [] };
    nodes.set(path, node);
    const parent = ensure(parentOf(path));
    parent.children.push(path);
    return node;
  };

  const visit = (cfg: NodeConfig, parentPath: string, where: string): void => {
    const raw = cfg.path.startsWith("/") ? cfg.path : joinPath(parentPath, cfg.path);
    const path = normalizePath(raw);
    if (path === null) {
      problems.push(`${where}.path: "${cfg.path}" is not a usable path (no "." or ".." segments)`);
      return;
    }
    if (parentPath !== "/" && path !== parentPath && !path.startsWith(parentPath + "/")) {
      problems.push(`${where}.path: "${path}" is not under its parent node "${parentPath}"`);
      return;
    }
    const node = ensure(path);
    if (cfg.summary !== undefined) node.summary = cfg.summary;
    if (cfg.description !== undefined) node.description = cfg.description;
    if (cfg.limits !== undefined) node.limits = cfg.limits;
    if (cfg.source) {
      if (node.mount !== undefined) {
        problems.push(`${where}.source: a source is already mounted at ${path}`);
      } else {
        node.mount = path;
        const name = cfg.source.name ?? (splitPath(path).join("_") || "root");
        const clash = mounts.find((m) => m.name === name);
        if (clash) {
          problems.push(
            `${where}.source.name: "${name}" is also the name of the source at ${clash.id}; set a distinct "name"`,
          );
        }
        mounts.push({ id: path, name, source: withSandboxDefault(cfg.source, config.sandbox) });
      }
    }
    cfg.children?.forEach((child, i) => visit(child, path, `${where}.children[${i}]`));
  };

  if (Array.isArray(config.tree)) {
    config.tree.forEach((n, i) => visit(n, "/", `$.tree[${i}]`));
  } else {
    visit(config.tree, "/", "$.tree");
  }
  return { nodes, mounts };
}

/**
 * A stdio source without a `sandbox` of its own gets the config's
 * `sandbox.default`: the setting is the source's from then on, so a change of
 * the default restarts the sources it reaches, as a change of their own would.
 */
function withSandboxDefault(
  source: SourceConfig,
  sandbox: { default?: unknown } | undefined,
): SourceConfig {
  const own = (source as { sandbox?: unknown }).sandbox;
  if (source.backend !== "stdio" || sandbox?.default === undefined || own !== undefined)
    return source;
  return { ...source, sandbox: sandbox.default } as SourceConfig;
}
