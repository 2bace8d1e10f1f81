import { join } from "node:path";
import type { ClientTarget } from "./client-target.js";

/** Claude Desktop starts its servers itself: `mcp-broker stdio CONFIG` (or `demo --stdio`). */
export const claudeDesktop: ClientTarget = {
  id: "claude-desktop",
  title: "Claude Desktop",
  file: ({ home, platform }) =>
    platform === "darwin"
      ? join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")
      : platform === "win32"
        ? join(
            process.env.APPDATA ?? join(home, "AppData", "Roaming"),
            "Claude",
            "claude_desktop_config.json",
          )
        : join(home, ".config", "Claude", "claude_desktop_config.json"),
  entry: (broker) =>
    broker.stdio
      ? {
          format: "json",
          edits: [{ path: ["mcpServers", broker.name], value: { ...broker.stdio } }],
        }
      : "Claude Desktop starts its servers over stdio from its config file: give the broker's config file (mcp-broker connect claude-desktop CONFIG), or --demo for the demo",
  notes: () => [
    "Claude Desktop runs its own broker over stdio with this config; restart Claude Desktop to load it.",
  ],
};
