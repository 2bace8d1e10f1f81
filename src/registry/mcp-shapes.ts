/** A registry service in MCP's terms: its functions as tools, its answers as tool results. */
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { CallOutcome } from "./service-runtime.js";
import type { ServiceDefinition } from "./tool-definition.js";

/** Each function as an MCP tool: its parameters are the input schema. */
export function toolsOf(definition: ServiceDefinition | undefined): Tool[] {
  return (definition?.functions ?? []).map((fn) => ({
    name: fn.name,
    description: fn.description,
    inputSchema: { type: "object", ...fn.parameters } as Tool["inputSchema"],
  }));
}

/** `data.image` when it is `{data, mime_type}` of an image, base64: shown to MCP clients as one. */
function imageOf(data: unknown): { data: string; mime_type: string } | undefined {
  const image = (data as { image?: unknown } | null)?.image as
    { data?: unknown; mime_type?: unknown } | undefined;
  return typeof image?.data === "string" &&
    typeof image.mime_type === "string" &&
    image.mime_type.startsWith("image/")
    ? { data: image.data, mime_type: image.mime_type }
    : undefined;
}

/**
 * The service's `data` as JSON text (and as structured content when it is an
 * object), so `/rpc` gives back exactly what the service sent, and an image
 * in it as image content; an execution failure as an error result with the
 * protocol's `error_type` and `details`.
 */
export function toCallResult(outcome: CallOutcome): CallToolResult {
  if (!outcome.ok) {
    const { errorType, details } = outcome.error;
    return {
      isError: true,
      content: [{ type: "text", text: `${errorType}: ${details}` }],
      structuredContent: { error_type: errorType, details },
    };
  }
  const data = outcome.data === undefined ? null : outcome.data;
  const structured =
    data !== null && typeof data === "object" && !Array.isArray(data)
      ? { structuredContent: data as Record<string, unknown> }
      : {};
  const image = imageOf(data);
  if (image) {
    // The picture as image content; the text tells the rest without repeating its bytes.
    const rest = { ...(data as Record<string, unknown>), image: { mime_type: image.mime_type } };
    return {
      content: [
        { type: "image", data: image.data, mimeType: image.mime_type },
        { type: "text", text: JSON.stringify(rest) },
      ],
      ...structured,
    };
  }
  return { content: [{ type: "text", text: JSON.stringify(data) }], ...structured };
}
