import type { CallToolResult } from "@modelcontextprotocol/server";
import { isJsonObject, parseJson } from "../../contract/json-text.js";
import type { CommandOutcome } from "./run-command.js";

/**
 * A run as a tool result, passed through and never reinterpreted: stdout's
 * JSON is the structured result and, verbatim, the text (a tool whose
 * `output` is `text`: the text alone). Every failure is a tool error with its
 * `kind`, the exit code, the signal and bounded stderr, and the command's own
 * JSON error when it printed one.
 */
export function commandResult(
  outcome: CommandOutcome,
  output: "json" | "text" = "json",
): CallToolResult {
  if (outcome.kind === "ok") {
    if (output === "text") return { content: [{ type: "text", text: outcome.stdout }] };
    const value = parseJson(outcome.stdout);
    if (value === undefined) {
      return failure({
        kind: "invalid_json",
        // Said for whoever reads the config: a command that prints text is served as such on request.
        message: `the command's output is not JSON (a tool whose command prints text has "output": "text" in the config)`,
        exit_code: 0,
        signal: null,
        stdout: outcome.stdout.slice(0, 2000),
        stderr: outcome.stderr,
      });
    }
    return {
      content: [{ type: "text", text: outcome.stdout }],
      // MCP's structured content is an object; other JSON stays in the text.
      ...(isJsonObject(value) ? { structuredContent: value } : {}),
    };
  }
  const own = [outcome.stderr, outcome.stdout].map(parseJson).find(isJsonObject);
  return failure({
    kind: outcome.kind,
    message: outcome.message,
    exit_code: outcome.exitCode,
    signal: outcome.signal,
    stderr: outcome.stderr,
    ...(own ? { command_output: own } : {}),
  });
}

function failure(error: Record<string, unknown>): CallToolResult {
  const structured = { error };
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}
