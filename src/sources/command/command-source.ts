import { statSync } from "node:fs";
import type { CallToolResult, ServerCapabilities, Tool } from "@modelcontextprotocol/sdk/types.js";
import { BrokerError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import type { CallContext, SourceStatus, SupervisedRouter } from "../../core/router.js";
import type { CommandSourceConfig } from "../../config/schema.js";
import { callArgv } from "./command-argv.js";
import { commandResult } from "./command-result.js";
import { runCommand } from "./run-command.js";

const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;

type CommandTool = CommandSourceConfig["tools"][number];

/**
 * Local programs as tools: exactly the commands the config lists (a closed
 * allowlist), each run without a shell, its output passed through as it is.
 */
export class CommandSource implements SupervisedRouter {
  private readonly tools: Map<string, CommandTool>;
  private lastError: string | undefined;
  private started = false;

  constructor(
    readonly name: string,
    private readonly config: CommandSourceConfig,
    private readonly log: Logger,
  ) {
    this.tools = new Map(config.tools.map((t) => [t.name, t]));
  }

  async start(): Promise<void> {
    for (const tool of this.config.tools) {
      const cwd = tool.cwd ?? this.config.cwd;
      if (cwd !== undefined && !statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
        this.lastError = `the working directory ${cwd} of tool ${tool.name} is not a directory`;
        throw new BrokerError("unavailable", `source ${this.name}: ${this.lastError}`, {
          source: this.name,
        });
      }
    }
    this.started = true;
    this.log.info({ source: this.name, tools: this.tools.size }, "source up");
  }

  status(): SourceStatus {
    return { up: this.started, restarts: 0, lastError: this.lastError };
  }

  instructions(): string | undefined {
    return undefined;
  }

  capabilities(): ServerCapabilities {
    return { tools: {} };
  }

  async listTools(): Promise<Tool[]> {
    return this.config.tools.map((t) => ({
      name: t.name,
      description: t.description ?? `Runs ${t.argv.join(" ")}`,
      inputSchema: {
        type: "object",
        additionalProperties: false,
        ...t.input_schema,
      } as Tool["inputSchema"],
    }));
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (!tool) throw new BrokerError("not_found", `unknown tool "${name}"`, { tool: name });
    const argv = callArgv(tool, args);
    const passed = tool.env ?? this.config.env ?? [];
    const env = Object.fromEntries(
      passed.flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]!]])),
    );
    const outcome = await runCommand({
      argv,
      cwd: tool.cwd ?? this.config.cwd,
      env,
      maxBytes: tool.max_bytes ?? this.config.max_bytes ?? DEFAULT_MAX_BYTES,
      timeoutMs: Math.min(
        tool.timeout_ms ?? this.config.timeout_ms ?? DEFAULT_TIMEOUT_MS,
        Math.max(ctx.deadline - Date.now(), 1),
      ),
      signal: ctx.signal,
    });
    if (outcome.kind !== "ok")
      this.log.debug({ source: this.name, tool: name, kind: outcome.kind }, "command failed");
    return commandResult(outcome);
  }

  async close(): Promise<void> {
    this.started = false;
  }
}
