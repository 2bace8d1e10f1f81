import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/server";
import type { RenderMode } from "../config/schema.js";

/**
 * A tool result as the caller of the meta API sees it, by `render_mode`:
 * - `mcp`: `{ content, structuredContent? }` exactly as the backend gave them;
 * - `text`: one string, text parts joined by newlines, other parts as `[image image/png, 1234 bytes]`;
 * - `json`: one JSON value: `structuredContent` if given, else the text parsed as
 *   JSON, else the text itself.
 */
export function renderResult(result: CallToolResult, mode: RenderMode): unknown {
  switch (mode) {
    case "mcp":
      return result.structuredContent === undefined
        ? { content: result.content }
        : { content: result.content, structuredContent: result.structuredContent };
    case "text":
      return resultText(result);
    case "json": {
      if (result.structuredContent !== undefined) return result.structuredContent;
      const text = resultText(result);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return text;
      }
    }
  }
}

function resultText(result: CallToolResult): string {
  return result.content.map(blockText).join("\n");
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
    case "resource":
      return "text" in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
    case "resource_link":
      return `[link ${block.uri}${block.name ? ` (${block.name})` : ""}]`;
  }
}
