import { createHash } from "node:crypto";
import { splitPath } from "./path.js";

const MAX_LENGTH = 64;

/**
 * The flat MCP tool name of a leaf: its path segments joined by `__`, every
 * character outside `[A-Za-z0-9_-]` replaced by `_`. A name longer than 64
 * characters keeps its head and ends in a hash of the whole path, so it stays
 * unique and the same across restarts.
 */
export function flatName(path: string): string {
  const name = splitPath(path)
    .map((s) => s.replace(/[^A-Za-z0-9_-]/g, "_"))
    .join("__");
  if (name.length <= MAX_LENGTH) return name;
  const hash = createHash("sha256").update(path).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_LENGTH - hash.length - 1)}_${hash}`;
}
