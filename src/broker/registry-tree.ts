import { ConfigError } from "../config/errors.js";
import type { Config, NodeConfig, ToolOverride } from "../config/schema.js";
import type { RegisteredTool } from "../registry/catalog.js";
import { HostAllowlist } from "../net/host-allowlist.js";
import { summarize } from "../tree/build-tree.js";
import type { Skeleton } from "../tree/skeleton.js";
import { checkConfig } from "./check-config.js";

export const DEFAULT_REGISTRY_MOUNT = "/registry";

/**
 * The config's tree with every registered tool mounted under the registry's
 * node, as `<mount>/<tool>/<function>`, each function's `timeout_seconds` as
 * its timeout; checked like any config. The registry's node must not be one
 * the config already uses, registered tools or not.
 */
export function skeletonWithRegistry(
  config: Config,
  tools: readonly RegisteredTool[],
  file?: string,
): Skeleton {
  const own = checkConfig(config, file);
  const mount = config.registry?.mount ?? DEFAULT_REGISTRY_MOUNT;
  const problems = HostAllowlist.problems(config.registry?.allowed_hosts ?? []).map(
    (p) => `$.registry.allowed_hosts: ${p}`,
  );
  if (own.nodes.has(mount)) {
    problems.push(
      `$.registry.mount: ${mount} is also a node of the tree; set registry.mount to a path the tree does not use`,
    );
  }
  if (problems.length > 0) throw new ConfigError(file ?? "config", problems);
  // No empty node in every tree: it appears with the first registration.
  if (tools.length === 0) return own;
  const registryNode: NodeConfig = {
    path: mount,
    summary: "Tool services: the broker's predefined tools and those registered at run time (/rpc)",
    children: tools.map(({ definition }) => ({
      path: definition.name,
      ...(definition.description === ""
        ? {}
        : { summary: summarize(definition.description), description: definition.description }),
      source: {
        backend: "registry",
        tool: definition.name,
        tool_overrides: Object.fromEntries(
          definition.functions
            .filter((fn) => fn.timeout_seconds !== undefined)
            .map((fn): [string, ToolOverride] => [fn.name, { timeout: fn.timeout_seconds }]),
        ),
      },
    })),
  };
  const tree = Array.isArray(config.tree) ? config.tree : [config.tree];
  return checkConfig({ ...config, tree: [...tree, registryNode] }, file);
}
