import { join } from "node:path";
import type { ClientTarget } from "./client-target.js";
import { authorizationHeader } from "./token-header.js";

/** Gemini CLI: Streamable HTTP (`httpUrl`) from `~/.gemini/settings.json`, which expands `${VAR}`. */
export const geminiCli: ClientTarget = {
  id: "gemini-cli",
  title: "Gemini CLI",
  file: ({ home }) => join(home, ".gemini", "settings.json"),
  entry: (broker) => ({
    format: "json",
    edits: [
      {
        path: ["mcpServers", broker.name],
        value: { httpUrl: broker.url, ...authorizationHeader(broker, (v) => `\${${v}}`) },
      },
    ],
  }),
};
