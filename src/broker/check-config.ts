import { statSync } from "node:fs";
import { commandArgv } from "../sources/mcp/command-line.js";
import type { Mount } from "../tree/skeleton.js";

/** Problems with mounted sources that validation of the JSON shape cannot see. */
export function checkMounts(mounts: readonly Mount[]): string[] {
  const problems: string[] = [];
  for (const mount of mounts) {
    if (mount.source.backend !== "stdio") continue;
    try {
      commandArgv(mount.source.command);
    } catch (err) {
      problems.push(`source at ${mount.id}: ${(err as Error).message}`);
    }
  }
  return problems;
}

/** What makes a backend process different: a change here means a restart. */
export function sourceDefinition(mount: Mount): string {
  const source = mount.source;
  switch (source.backend) {
    case "stdio":
      return JSON.stringify([source.backend, source.command, source.env, source.cwd]);
    case "http":
      return JSON.stringify([source.backend, source.url, source.headers]);
    case "emcp":
      return JSON.stringify([
        source.backend,
        source.database,
        source.table_prefix,
        source.max_result_items,
        source.max_offset,
        source.max_depth,
      ]);
    case "command":
      return JSON.stringify([
        source.backend,
        source.tools,
        source.preset,
        source.program,
        source.network,
        source.cwd,
        source.env,
        source.max_bytes,
        source.timeout_ms,
      ]);
    case "wasm":
      return JSON.stringify([
        source.backend,
        source.component,
        // A rebuilt component is a new one: a reload picks it up.
        statSync(source.component, { throwIfNoEntry: false })?.mtimeMs,
        source.permissions,
        source.timeout_ms,
        source.max_memory_mb,
        source.cache_dir,
        source.instances,
      ]);
  }
}
