import type { Tree, TreeEntry } from "./tree.js";
import { lastSegment } from "./path.js";

/** The tree as indented text, one entry a line: what `--dump-tree` prints. */
export function dumpTree(tree: Tree): string {
  const lines: string[] = [];
  const walk = (entry: TreeEntry, depth: number): void => {
    const indent = "  ".repeat(depth);
    if (entry.type === "tool") {
      lines.push(
        `${indent}${lastSegment(entry.path)}  (tool ${entry.flatName}${entry.toolName !== lastSegment(entry.path) ? `, backend tool ${entry.toolName}` : ""})${entry.summary ? `  ${entry.summary}` : ""}`,
      );
      return;
    }
    const name = entry.path === "/" ? "/" : `${lastSegment(entry.path)}/`;
    lines.push(`${indent}${name}${entry.summary ? `  ${entry.summary}` : ""}`);
    for (const child of tree.children(entry)) walk(child, depth + 1);
  };
  walk(tree.node("/"), 0);
  return lines.join("\n") + "\n";
}
