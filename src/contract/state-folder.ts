import { homedir } from "node:os";
import { join } from "node:path";

/**
 * A folder of what the broker keeps between runs and must not lose as a
 * cache may be lost (pinned tool definitions): `$XDG_STATE_HOME/mcp-broker/…`,
 * else `~/.local/state/mcp-broker/…`.
 */
export function stateFolder(...parts: string[]): string {
  return join(
    process.env.XDG_STATE_HOME || join(homedir(), ".local", "state"),
    "mcp-broker",
    ...parts,
  );
}
