import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** Keys the eMCP contract says must never be returned. */
export const SENSITIVE_KEYS = [
  "password",
  "cachepwd",
  "verified_key",
  "refresh_token",
  "access_token",
  "sessionid",
];

/** A copy of a JSON value without the given keys (compared without case), at any depth. */
export function redactValue(value: unknown, keys: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => redactValue(v, keys));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      if (!keys.has(k.toLowerCase())) out[k] = redactValue(v, keys);
    return out;
  }
  return value;
}

/** JSON held in a string is redacted too, and written back in the same layout. */
export function redactText(text: string, keys: ReadonlySet<string>): string {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  // Text with nothing to remove is returned as it came, byte for byte.
  if (!holdsKey(parsed, keys)) return text;
  const redacted = redactValue(parsed, keys);
  return JSON.stringify(redacted, null, text.includes("\n") ? 2 : undefined);
}

function holdsKey(value: unknown, keys: ReadonlySet<string>): boolean {
  if (Array.isArray(value)) return value.some((v) => holdsKey(v, keys));
  if (value !== null && typeof value === "object")
    return Object.entries(value).some(([k, v]) => keys.has(k.toLowerCase()) || holdsKey(v, keys));
  return false;
}

/** A tool result without sensitive keys: in structured content, text parts and embedded resources. */
export function redactResult(result: CallToolResult, keys: ReadonlySet<string>): CallToolResult {
  const content = result.content.map((block) => {
    if (block.type === "text") return { ...block, text: redactText(block.text, keys) };
    if (block.type === "resource" && "text" in block.resource) {
      return {
        ...block,
        resource: { ...block.resource, text: redactText(block.resource.text, keys) },
      };
    }
    return block;
  });
  const out: CallToolResult = { ...result, content };
  if (result.structuredContent !== undefined) {
    out.structuredContent = redactValue(result.structuredContent, keys) as Record<string, unknown>;
  }
  return out;
}
