import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ServerCapabilities,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { BrokerError } from "../../core/errors.js";
import type { Logger } from "../../core/log.js";
import type { CallContext, ChangeKind, SourceStatus, SupervisedRouter } from "../../core/router.js";
import type { SourceConfig } from "../../config/schema.js";
import { Backoff } from "./backoff.js";
import { commandArgv } from "./command-line.js";
import { backendError } from "./errors.js";
import { RelayedCallToolResult } from "./relayed-result.js";
import { packageVersion } from "../../core/version.js";

const STDERR_LINES_KEPT = 20;
const BACKSTOP_MS = 1000;

/**
 * An MCP server run as a child process over stdio, supervised: started once for
 * all clients, restarted with backoff when it exits, and failing calls at once
 * with `unavailable` while it is down.
 */
export class StdioMcpSource implements SupervisedRouter {
  private client: Client | null = null;
  private tools: Tool[] = [];
  private up = false;
  private closed = false;
  private restarts = 0;
  private lastError: string | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly backoff = new Backoff();
  private readonly listeners = new Set<(what: ChangeKind) => void>();
  private readonly stderrTail: string[] = [];
  private readonly argv: string[];

  constructor(
    readonly name: string,
    private readonly config: SourceConfig,
    private readonly log: Logger,
  ) {
    this.argv = commandArgv(config.command);
  }

  async start(): Promise<void> {
    try {
      await this.connect();
    } catch (err) {
      this.scheduleRestart();
      throw err;
    }
  }

  status(): SourceStatus {
    return { up: this.up, restarts: this.restarts, lastError: this.lastError };
  }

  instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  capabilities(): ServerCapabilities {
    return this.client?.getServerCapabilities() ?? {};
  }

  async listTools(): Promise<Tool[]> {
    return this.tools;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<CallToolResult> {
    const client = this.connected();
    try {
      return await client.request(
        { method: "tools/call", params: { name, arguments: args } },
        RelayedCallToolResult,
        {
          signal: ctx.signal,
          // A backstop only: the policy's timeout aborts `signal` first, with the better message.
          timeout: Math.max(1, ctx.deadline - Date.now()) + BACKSTOP_MS,
          onprogress: ctx.progress,
        },
      );
    } catch (err) {
      throw backendError(
        ctx.signal.aborted ? ctx.signal.reason : err,
        this.name,
        `tools/call ${name}`,
      );
    }
  }

  onChange(listener: (what: ChangeKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    const client = this.client;
    this.client = null;
    this.up = false;
    await client?.close();
  }

  private connected(): Client {
    if (this.up && this.client) return this.client;
    const why = this.lastError ? `: ${this.lastError}` : "";
    throw new BrokerError("unavailable", `source ${this.name} is down and being restarted${why}`, {
      source: this.name,
    });
  }

  private async connect(): Promise<void> {
    const [command, ...args] = this.argv as [string, ...string[]];
    const transport = new StdioClientTransport({
      command,
      args,
      env: { ...getDefaultEnvironment(), ...this.config.env },
      cwd: this.config.cwd,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => this.keepStderr(chunk));
    const client = new Client(
      { name: "mcp-broker", version: packageVersion },
      { capabilities: {} },
    );
    client.setNotificationHandler(ToolListChangedNotificationSchema, () =>
      this.refreshTools(client),
    );
    try {
      await client.connect(transport);
      this.tools = await this.fetchTools(client);
    } catch (err) {
      await client.close().catch(() => undefined);
      const tail = this.stderrTail.slice(-3).join(" | ");
      this.lastError = `${(err as Error).message}${tail ? ` (stderr: ${tail})` : ""}`;
      throw new BrokerError(
        "unavailable",
        `source ${this.name} could not start "${this.argv.join(" ")}": ${this.lastError}`,
        { source: this.name },
      );
    }
    if (this.closed) {
      await client.close();
      return;
    }
    client.onclose = () => this.onExit(client);
    this.client = client;
    this.up = true;
    this.lastError = undefined;
    this.backoff.markUp();
    this.log.info({ source: this.name, pid: transport.pid, tools: this.tools.length }, "source up");
    this.emit("tools");
  }

  private async fetchTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  private async refreshTools(client: Client): Promise<void> {
    try {
      this.tools = await this.fetchTools(client);
      this.emit("tools");
    } catch (err) {
      this.log.warn(
        { source: this.name, err: (err as Error).message },
        "tools/list after list_changed failed",
      );
    }
  }

  private onExit(client: Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.up = false;
    if (this.closed) return;
    this.lastError = `the process exited${this.stderrTail.length ? ` (stderr: ${this.stderrTail.slice(-3).join(" | ")})` : ""}`;
    this.log.warn({ source: this.name, err: this.lastError }, "source down");
    this.emit("tools");
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    if (this.closed) return;
    const delay = this.backoff.nextDelay();
    this.restartTimer = setTimeout(() => {
      this.restarts += 1;
      this.connect().catch((err: Error) => {
        this.log.warn(
          { source: this.name, err: err.message, retryInMs: delay * 2 },
          "restart failed",
        );
        this.scheduleRestart();
      });
    }, delay);
    this.restartTimer.unref();
  }

  private keepStderr(chunk: Buffer): void {
    for (const line of chunk.toString("utf8").split("\n")) {
      const text = line.trim();
      if (text === "") continue;
      this.stderrTail.push(text.slice(0, 500));
      if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.shift();
      this.log.debug({ source: this.name, stderr: text }, "source stderr");
    }
  }

  private emit(what: ChangeKind): void {
    for (const listener of this.listeners) listener(what);
  }
}
