import { join } from "node:path";
import type { ClientTarget } from "./client-target.js";
import { authorizationHeader } from "./token-header.js";

/** Claude Code: Streamable HTTP from the project's `.mcp.json`, which expands `${VAR}`. */
export const claudeCode: ClientTarget = {
  id: "claude-code",
  title: "Claude Code",
  file: ({ project }) => join(project, ".mcp.json"),
  entry: (broker) => ({
    format: "json",
    edits: [
      {
        path: ["mcpServers", broker.name],
        value: { type: "http", url: broker.url, ...authorizationHeader(broker, (v) => `\${${v}}`) },
      },
    ],
  }),
  notes: (broker) => [
    `Or: claude mcp add --transport http ${broker.name} ${broker.url}${
      broker.token
        ? ` --header "Authorization: Bearer ${"env" in broker.token ? `$${broker.token.env}` : broker.token.literal}"`
        : ""
    }`,
  ],
};
