import { commandArgv } from "../sources/mcp/command-line.js";
import type { Mount } from "../tree/skeleton.js";

/** Problems with mounted sources that validation of the JSON shape cannot see. */
export function checkMounts(mounts: readonly Mount[]): string[] {
  const problems: string[] = [];
  for (const mount of mounts) {
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
  const { backend, command, env, cwd } = mount.source;
  return JSON.stringify({ backend, command, env, cwd });
}
