/**
 * WIT content records of `wasix:mcp/router` as MCP content, and the other way
 * for nothing: content only flows from a component to the broker.
 */
import type {
  Annotations,
  ContentBlock,
  EmbeddedResource,
  PromptMessage,
} from "@modelcontextprotocol/server";
import type * as Wit from "./wit/router-types.js";

/**
 * WIT `f32` widened to a JS number carries binary noise (0.1 → 0.10000000149…);
 * seven significant digits is all an f32 holds, so that is what is kept.
 */
export function fromF32(value: number): number {
  return Number(value.toPrecision(7));
}

/** WIT `annotations` as MCP annotations; `timestamp` is MCP's `lastModified`. */
export function annotationsFromWit(a: Wit.Annotations | undefined): Annotations | undefined {
  if (!a) return undefined;
  const out: Annotations = {};
  if (a.audience) out.audience = [...a.audience];
  if (a.priority !== undefined) out.priority = fromF32(a.priority);
  if (a.timestamp !== undefined) out.lastModified = a.timestamp;
  return out;
}

/** A `list<meta-entry>` as an MCP `_meta` object; a repeated key keeps its last value. */
export function metaFromWit(
  entries: readonly Wit.MetaEntry[] | undefined,
): Record<string, string> | undefined {
  if (!entries || entries.length === 0) return undefined;
  return Object.fromEntries(entries.map((e) => [e.key, e.value]));
}

export function resourceContentsFromWit(c: Wit.ResourceContents): EmbeddedResource["resource"] {
  const { uri, mimeType } = c.val;
  const typed = mimeType === undefined ? { uri } : { uri, mimeType };
  return c.tag === "text" ? { ...typed, text: c.val.text } : { ...typed, blob: c.val.blob };
}

function withAnnotations<T extends object>(block: T, a: Wit.Annotations | undefined) {
  const annotations = annotationsFromWit(a);
  return annotations ? { ...block, annotations } : block;
}

function embeddedFromWit(e: Wit.EmbeddedResource): EmbeddedResource {
  return withAnnotations(
    { type: "resource" as const, resource: resourceContentsFromWit(e.resourceContents) },
    e.annotations,
  );
}

/** The `content` variant as an MCP content block. */
export function contentFromWit(c: Wit.Content): ContentBlock {
  switch (c.tag) {
    case "text":
      return withAnnotations({ type: "text" as const, text: c.val.text }, c.val.annotations);
    case "image":
    case "audio":
      return withAnnotations(
        { type: c.tag, data: c.val.data, mimeType: c.val.mimeType },
        c.val.annotations,
      );
    case "embedded":
      return embeddedFromWit(c.val);
  }
}

/** The `prompt-message-content` variant; `mcp-resource` is an embedded resource. */
export function promptMessageFromWit(m: Wit.PromptMessage): PromptMessage {
  const { content } = m;
  switch (content.tag) {
    case "text":
    case "image":
      return { role: m.role, content: contentFromWit(content) };
    case "mcp-resource":
      return { role: m.role, content: embeddedFromWit(content.val) };
  }
}
