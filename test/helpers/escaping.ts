import { fileURLToPath } from "node:url";

/** The sandbox tests' hostile program: an MCP server, or a command with `attempt`. */
export const ESCAPING = fileURLToPath(new URL("../fixtures/escaping-server.mjs", import.meta.url));

const OPTIONS = ["what", "path", "host", "port", "name", "count", "mb"] as const;
const TEXT = new Set(["what", "path", "host", "name"]);

/**
 * The hostile program as a command source's tool `attempt`: `escaping-server.mjs
 * attempt WHAT --option value …`, each argument elements of its own, its
 * answer `{"answer": "ok …" | "refused …"}`.
 */
export const escapingCommandTool = {
  name: "attempt",
  argv: [process.execPath, ESCAPING, "attempt"],
  input_schema: {
    properties: Object.fromEntries(
      OPTIONS.map((o) => [o, { type: TEXT.has(o) ? "string" : "integer" }]),
    ),
    required: ["what"],
  },
  arguments: Object.fromEntries(
    OPTIONS.map((o) => [o, o === "what" ? ["{value}"] : [`--${o}`, "{value}"]]),
  ),
};
