import type { Config } from "../config/schema.js";
import type { Logger } from "../contract/log.js";
import { buildTree } from "../tree/build-tree.js";
import type { Skeleton } from "../tree/skeleton.js";
import type { Tree } from "../tree/tree.js";
import type { PinBook } from "../pinning/pin-book.js";
import type { SourcePool } from "./source-pool.js";

/**
 * The tree of a config with the tools its sources list now, as far as their
 * pinned definitions trust them. A source whose
 * list fails counts as having none (it is logged); what does not fit the
 * config (warnings) and what cannot be mounted (problems, to refuse or leave
 * out) are the caller's to say.
 */
export async function treeOfSources(
  config: Config,
  skeleton: Skeleton,
  sources: SourcePool,
  log: Logger,
  pins: PinBook,
): Promise<{ tree: Tree; problems: string[]; warnings: string[] }> {
  const lists = await Promise.all(
    skeleton.mounts.map(async (m) => {
      const tools = sources.has(m.id)
        ? await sources.listTools(m.id).catch((err: Error) => {
            log.warn({ source: m.id, err: err.message }, "tools/list failed");
            return [];
          })
        : [];
      return [m.id, tools] as const;
    }),
  );
  // What pinning holds back (a changed definition under `enforce`) is not mounted at all.
  const trusted = await pins.review(skeleton.mounts, new Map(lists));
  return buildTree(config, skeleton, trusted);
}
