import { claudeCode } from "./claude-code.js";
import { claudeDesktop } from "./claude-desktop.js";
import type { ClientTarget } from "./client-target.js";
import { codexCli } from "./codex-cli.js";
import { cursor } from "./cursor.js";
import { geminiCli } from "./gemini-cli.js";
import { vscode } from "./vscode.js";
import { windsurf } from "./windsurf.js";

/** Every client `mcp-broker connect` knows. A new one: its file here, and one entry. */
export const CLIENT_TARGETS: readonly ClientTarget[] = [
  claudeDesktop,
  claudeCode,
  cursor,
  vscode,
  windsurf,
  codexCli,
  geminiCli,
];
