import { join } from "node:path";
import type { ClientTarget } from "./client-target.js";

const INPUT_ID = "mcp-broker-token";

/**
 * VS Code: Streamable HTTP from the workspace's `.vscode/mcp.json`; a token
 * by variable becomes an input VS Code asks for once and keeps in its secret
 * storage.
 */
export const vscode: ClientTarget = {
  id: "vscode",
  title: "VS Code",
  file: ({ project }) => join(project, ".vscode", "mcp.json"),
  promptsForToken: true,
  entry: (broker) => {
    const token = broker.token;
    const byInput = token !== undefined && "env" in token;
    const authorization =
      token === undefined
        ? undefined
        : `Bearer ${byInput ? `\${input:${INPUT_ID}}` : token.literal}`;
    return {
      format: "json",
      edits: [
        ...(byInput
          ? [
              {
                path: ["inputs"],
                value: {
                  type: "promptString",
                  id: INPUT_ID,
                  description: "mcp-broker token",
                  password: true,
                },
                append: true as const,
              },
            ]
          : []),
        {
          path: ["servers", broker.name],
          value: {
            type: "http",
            url: broker.url,
            ...(authorization ? { headers: { Authorization: authorization } } : {}),
          },
        },
      ],
    };
  },
  notes: (broker) =>
    broker.token && "env" in broker.token
      ? [
          "VS Code asks for the token once (input mcp-broker-token) and keeps it in its secret storage.",
        ]
      : [],
};
