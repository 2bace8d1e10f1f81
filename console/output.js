import { h } from "./dom.js";

const MEDIA = /^(image|audio)\/[a-z0-9.+-]+$/i;

/**
 * A call's output as `render_mode` gave it: text as text, MCP content blocks
 * one by one (images and audio from their data, never from a URL), anything
 * else as JSON.
 */
export function renderOutput(output) {
  if (typeof output === "string") return h("pre", { class: "output" }, output);
  if (output && Array.isArray(output.content)) {
    return h(
      "div",
      { class: "output" },
      output.content.map(block),
      output.structuredContent === undefined
        ? null
        : h(
            "details",
            { open: true },
            h("summary", {}, "Structured content"),
            h("pre", {}, pretty(output.structuredContent)),
          ),
    );
  }
  return h("pre", { class: "output" }, pretty(output));
}

function block(part) {
  switch (part?.type) {
    case "text":
      return h("pre", {}, asJson(part.text) ?? part.text);
    case "image":
    case "audio":
      if (typeof part.data !== "string" || !MEDIA.test(part.mimeType ?? ""))
        return h("pre", {}, pretty(part));
      return part.type === "image"
        ? h("img", {
            src: `data:${part.mimeType};base64,${part.data}`,
            alt: `image (${part.mimeType}) from the tool`,
          })
        : h("audio", { controls: true, src: `data:${part.mimeType};base64,${part.data}` });
    case "resource":
      return h(
        "figure",
        {},
        h("figcaption", {}, `resource ${part.resource?.uri ?? ""}`),
        h(
          "pre",
          {},
          typeof part.resource?.text === "string" ? part.resource.text : pretty(part.resource),
        ),
      );
    case "resource_link":
      return h("p", {}, `link: ${part.uri}${part.name ? ` (${part.name})` : ""}`);
    default:
      return h("pre", {}, pretty(part));
  }
}

/** A text that holds a JSON object or list, laid out to be read; undefined for any other text. */
function asJson(text) {
  if (typeof text !== "string" || !/^\s*[[{]/.test(text)) return undefined;
  try {
    return pretty(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function pretty(value) {
  return JSON.stringify(value, null, 2) ?? String(value);
}
