import { join } from "node:path";
import type { ClientTarget } from "./client-target.js";
import { authorizationHeader } from "./token-header.js";

/** Cursor: Streamable HTTP from `~/.cursor/mcp.json`, which expands `${env:VAR}`. */
export const cursor: ClientTarget = {
  id: "cursor",
  title: "Cursor",
  file: ({ home }) => join(home, ".cursor", "mcp.json"),
  entry: (broker) => ({
    format: "json",
    edits: [
      {
        path: ["mcpServers", broker.name],
        value: { url: broker.url, ...authorizationHeader(broker, (v) => `\${env:${v}}`) },
      },
    ],
  }),
};
