import { homedir } from "node:os";
import { join } from "node:path";

/** A folder of the broker's cache: `$XDG_CACHE_HOME/mcp-broker/…`, else `~/.cache/mcp-broker/…`. */
export function cacheFolder(...parts: string[]): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "mcp-broker", ...parts);
}
