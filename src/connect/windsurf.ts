import { join } from "node:path";
import type { ClientTarget } from "./client-target.js";
import { authorizationHeader } from "./token-header.js";

/** Windsurf: Streamable HTTP (`serverUrl`) from `~/.codeium/windsurf/mcp_config.json`, `${env:VAR}`. */
export const windsurf: ClientTarget = {
  id: "windsurf",
  title: "Windsurf",
  file: ({ home }) => join(home, ".codeium", "windsurf", "mcp_config.json"),
  entry: (broker) => ({
    format: "json",
    edits: [
      {
        path: ["mcpServers", broker.name],
        value: { serverUrl: broker.url, ...authorizationHeader(broker, (v) => `\${env:${v}}`) },
      },
    ],
  }),
};
