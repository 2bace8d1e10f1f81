import { readFile } from "node:fs/promises";
import { parse as parseJsonc, type ParseError } from "jsonc-parser";
import { editJson, replaceFile } from "../connect/connection.js";

/**
 * Adds a node to a broker config file's `tree`, the file's comments and
 * the rest kept and what was there backed up; refused where the file is
 * not a broker config or the path is taken. Returns the backup's name.
 */
export async function addToConfig(file: string, node: { path: string } & Record<string, unknown>) {
  const before = await readFile(file, "utf8");
  const errors: ParseError[] = [];
  const config = parseJsonc(before, errors, { allowTrailingComma: true }) as
    { tree?: unknown } | undefined;
  if (errors.length > 0 || config === null || typeof config !== "object")
    throw new Error(`${file} is not a JSON config; fix it first`);
  const tree = config.tree ?? [];
  if (!Array.isArray(tree))
    throw new Error(`${file}'s tree is one root node, not a list: add the server by hand under it`);
  if (tree.some((n: { path?: unknown }) => n?.path === node.path))
    throw new Error(`${file} has a node ${node.path} already; give another --path`);
  const after = editJson(before, [{ path: ["tree"], value: node, append: true }], file);
  return replaceFile(file, after, true);
}
