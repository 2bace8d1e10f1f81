import { createHash } from "node:crypto";
import { splitPath } from "./path.js";

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;

/**
 * The flat MCP tool name of a leaf: its path segments joined by `__`, every
 * character outside `[A-Za-z0-9_-]` replaced by `_`. A name longer than 64
 * characters keeps the tool's own name whole and shortens the path before
 * it, which then ends in a hash of the whole path: unique, the same across
 * restarts, and still telling the tools of one long path apart by what a
 * model reads last. Only a tool name that alone leaves no room is cut, and
 * then ends in the hash.
 */
export function flatName(path: string): string {
  const segments = splitPath(path).map((s) => s.replace(/[^A-Za-z0-9_-]/g, "_"));
  const name = segments.join("__");
  if (name.length <= MAX_LENGTH) return name;
  const hash = createHash("sha256").update(path).digest("hex").slice(0, HASH_LENGTH);
  const tool = segments.at(-1)!;
  const room = MAX_LENGTH - tool.length - "__".length - "_".length - HASH_LENGTH;
  if (room < 1 || segments.length === 1)
    return `${tool.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${hash}`;
  const place = segments.slice(0, -1).join("__").slice(0, room).replace(/_+$/, "");
  return `${place}_${hash}__${tool}`;
}
