import type { Tool } from "@modelcontextprotocol/server";
import { splitPath } from "../tree/path.js";
import type { NodeEntry, Tree } from "../tree/tree.js";
import type { SearchableTool } from "./searchable-tool.js";

/** Every leaf of a tree as the search index reads it. */
export function searchableTools(tree: Tree): SearchableTool[] {
  const nodeTexts = new Map<string, string>();
  const nodeText = (path: string): string => {
    let text = nodeTexts.get(path);
    if (text === undefined) {
      const node = tree.get(path) as NodeEntry | undefined;
      text = [node?.summary, node?.description].filter(Boolean).join(" ");
      nodeTexts.set(path, text);
    }
    return text;
  };
  return tree.tools().map((leaf) => {
    const segments = splitPath(leaf.path);
    const ancestors = segments.slice(0, -1).map((_, i) => "/" + segments.slice(0, i + 1).join("/"));
    const name = segments.at(-1)!;
    return {
      path: leaf.path,
      name: name === leaf.toolName ? name : `${name} ${leaf.toolName}`,
      description: leaf.description.includes(leaf.summary)
        ? leaf.description
        : `${leaf.summary} ${leaf.description}`,
      parameters: parameterText(leaf.tool.inputSchema),
      requiredParameters: leaf.tool.inputSchema.required ?? [],
      context: [...segments.slice(0, -1), ...ancestors.map(nodeText)].join(" "),
    };
  });
}

/** The top-level parameters: each name, its description and the values it may take. */
function parameterText(schema: Tool["inputSchema"]): string {
  const parts: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    parts.push(name);
    if (property === null || typeof property !== "object") continue;
    const { description, enum: values } = property as { description?: unknown; enum?: unknown };
    if (typeof description === "string") parts.push(description);
    if (Array.isArray(values)) parts.push(values.filter((v) => typeof v === "string").join(" "));
  }
  return parts.join(" ");
}
