import { join } from "node:path";
import type { ClientTarget } from "./client-target.js";

/** Codex CLI: Streamable HTTP from `~/.codex/config.toml`, the token by `bearer_token_env_var`. */
export const codexCli: ClientTarget = {
  id: "codex",
  title: "Codex CLI",
  file: ({ home }) => join(home, ".codex", "config.toml"),
  entry: (broker) => {
    if (broker.token && "literal" in broker.token)
      return "Codex CLI takes a token only from an environment variable: give --token-env NAME";
    const lines = [
      `[mcp_servers.${/^[A-Za-z0-9_-]+$/.test(broker.name) ? broker.name : JSON.stringify(broker.name)}]`,
      `url = ${JSON.stringify(broker.url)}`,
      ...(broker.token ? [`bearer_token_env_var = ${JSON.stringify(broker.token.env)}`] : []),
    ];
    return { format: "toml", table: ["mcp_servers", broker.name], text: lines.join("\n") + "\n" };
  },
};
