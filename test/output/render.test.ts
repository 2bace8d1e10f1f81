import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { renderResult } from "../../src/output/render.js";

const mixed: CallToolResult = {
  content: [
    { type: "text", text: "line one" },
    { type: "image", data: "AAAA", mimeType: "image/png" },
    { type: "resource", resource: { uri: "file:///a.txt", text: "embedded" } },
    { type: "resource_link", uri: "file:///b.txt", name: "b" },
  ],
};

describe("render_mode", () => {
  it("mcp: content (and structuredContent) exactly as the backend gave them", () => {
    expect(renderResult(mixed, "mcp")).toEqual({ content: mixed.content });
    const structured = {
      content: [{ type: "text" as const, text: "{}" }],
      structuredContent: { a: 1 },
    };
    expect(renderResult(structured, "mcp")).toEqual(structured);
  });
  it("text: one string, other parts described", () => {
    expect(renderResult(mixed, "text")).toBe(
      "line one\n[image image/png, 3 bytes]\nembedded\n[link file:///b.txt (b)]",
    );
  });
  it("json: structuredContent first, then text parsed as JSON, then the text itself", () => {
    expect(
      renderResult(
        { content: [{ type: "text", text: "[1]" }], structuredContent: { a: 1 } },
        "json",
      ),
    ).toEqual({ a: 1 });
    expect(renderResult({ content: [{ type: "text", text: '{"n": [1, 2]}' }] }, "json")).toEqual({
      n: [1, 2],
    });
    expect(renderResult({ content: [{ type: "text", text: "not json" }] }, "json")).toBe(
      "not json",
    );
  });
});
