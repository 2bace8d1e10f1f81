import type { CallToolResult } from "@modelcontextprotocol/server";
import { isJsonObject, parseJson } from "../../contract/json-text.js";
import type { GuardedResponse } from "../../net/guarded-request.js";

/** How much of an error answer's text a tool error quotes. */
const ERROR_TEXT = 1000;

/**
 * An API's answer as a tool result: JSON as its text and, when it is an
 * object, as structured content; an image as an image; other text as text;
 * anything else said in words. A 4xx or 5xx is a tool error with the status
 * and what the API said (its `message`, `error`, `detail` or `title`, else
 * the start of its body): the model can correct its call.
 */
export function callResult(answer: GuardedResponse): CallToolResult {
  const type = String(answer.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  const text = answer.body.toString("utf8");
  const json = /^application\/(.+\+)?json$/.test(type) ? parseJson(text) : undefined;
  if (answer.status >= 400) {
    return {
      isError: true,
      content: [
        {
          type: "text",
          text: `HTTP ${answer.status}${messageOf(json, text) ? `: ${messageOf(json, text)}` : ""}`,
        },
      ],
      ...(isJsonObject(json) ? { structuredContent: { status: answer.status, body: json } } : {}),
    };
  }
  if (json !== undefined) {
    return {
      content: [{ type: "text", text }],
      ...(isJsonObject(json) ? { structuredContent: json } : {}),
    };
  }
  if (type.startsWith("image/"))
    return { content: [{ type: "image", data: answer.body.toString("base64"), mimeType: type }] };
  if (type === "" || type.startsWith("text/") || /xml|yaml|csv/.test(type))
    return { content: [{ type: "text", text: text || `HTTP ${answer.status}` }] };
  return {
    content: [
      { type: "text", text: `HTTP ${answer.status}: ${answer.body.length} bytes of ${type}` },
    ],
  };
}

function messageOf(json: unknown, text: string): string {
  if (isJsonObject(json)) {
    for (const key of ["message", "error", "detail", "title", "error_description"]) {
      const value = json[key];
      if (typeof value === "string") return value.slice(0, ERROR_TEXT);
      if (isJsonObject(value) && typeof value.message === "string")
        return value.message.slice(0, ERROR_TEXT);
    }
  }
  return text.trim().slice(0, ERROR_TEXT);
}
