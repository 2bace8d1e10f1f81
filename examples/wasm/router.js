// A tool source as a WebAssembly component: this module exports `router`, the
// interface wasix:mcp/router@25.3.26 of the package's wit/mcp.wit, with the
// WIT names in camelCase. Build it with
//   npx mcp-broker wasm build examples/wasm/router.js --out examples/wasm/text-tools.wasm
// and mount it with examples/wasm/config.json.
//
// Values cross the boundary as WIT records: JSON travels as { json: "..." },
// variants as { tag, val }. A failure is thrown as a WIT error variant, such as
// { tag: "invalid-parameters", val: "why" }; throwing anything else traps the
// instance, and the broker replaces it.

const NOTES = "Text tools run inside a WebAssembly sandbox: no files, no network, no environment.";

function schema(properties, required) {
  return { json: JSON.stringify({ type: "object", properties, required }) };
}

function text(value) {
  return { tag: "text", val: { text: value } };
}

function argumentsOf(value) {
  const args = JSON.parse(value.json);
  if (typeof args.text !== "string")
    throw { tag: "invalid-parameters", val: "text must be a string" };
  return args;
}

export const router = {
  name() {
    return "text-tools";
  },

  instructions() {
    return "Counts and reshapes text. Every tool takes { text }.";
  },

  capabilities() {
    return { tools: {}, resources: {}, prompts: {} };
  },

  listTools() {
    return [
      {
        name: "word_count",
        description: "Counts the words, lines and characters of a text.",
        inputSchema: schema({ text: { type: "string" } }, ["text"]),
        annotations: { readOnly: true },
      },
      {
        name: "slugify",
        description: "Turns a title into a URL slug: lower case, ASCII letters and digits, dashes.",
        inputSchema: schema({ text: { type: "string" } }, ["text"]),
        annotations: { readOnly: true },
      },
    ];
  },

  callTool(name, value) {
    const { text: input } = argumentsOf(value);
    switch (name) {
      case "word_count": {
        const words = input.split(/\s+/).filter(Boolean).length;
        const lines = input === "" ? 0 : input.split("\n").length;
        return {
          content: [text(JSON.stringify({ words, lines, characters: [...input].length }))],
        };
      }
      case "slugify":
        return {
          content: [
            text(
              input
                .toLowerCase()
                .replace(/[^a-z0-9]+/g, "-")
                .replace(/^-|-$/g, ""),
            ),
          ],
        };
      default:
        throw { tag: "not-found", val: `no tool named ${name}` };
    }
  },

  listResources() {
    return [
      {
        uri: "text-tools://notes",
        name: "notes",
        description: "About these tools",
        mimeType: "text/plain",
      },
    ];
  },

  readResource(uri) {
    if (uri !== "text-tools://notes") throw { tag: "not-found", val: `no resource ${uri}` };
    return { contents: [{ tag: "text", val: { uri, mimeType: "text/plain", text: NOTES } }] };
  },

  listPrompts() {
    return [{ name: "tidy", description: "Asks for a tidied version of a text." }];
  },

  getPrompt(name) {
    if (name !== "tidy") throw { tag: "not-found", val: `no prompt ${name}` };
    return {
      messages: [
        {
          role: "user",
          content: text("Tidy the following text: fix spacing and punctuation, keep the words."),
        },
      ],
    };
  },

  complete() {
    throw { tag: "not-found", val: "text-tools completes nothing" };
  },
};
