import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult, ServerCapabilities, Tool } from "@modelcontextprotocol/server";
import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import type { CallContext, Router } from "../../contract/router.js";
import type { CommandSourceConfig } from "./config.js";
import { callArgv } from "./command-argv.js";
import { noNetworkPrefix } from "./no-network.js";
import { commandSetup, type CommandSetup, type CommandTool } from "./preset.js";
import { commandResult } from "./command-result.js";
import { runCommand } from "./run-command.js";
import { sandboxPlanOf, type SandboxPlan } from "../../isolation/sandbox/sandbox-plan.js";
import { sandboxedSpawn, type SandboxedSpawn } from "../../isolation/sandbox/sandboxed-spawn.js";
import { EGRESS_SOCKET, EgressProxy } from "../../net/egress-proxy.js";

const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Where a program's name is looked up when the tool passes no PATH (as the OS would). */
const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * Local programs as tools: exactly the commands the config lists (a closed
 * allowlist), each run without a shell, its output passed through as it is;
 * with a `sandbox`, each run in a sandbox of its own.
 */
export class CommandSource implements Router {
  private readonly setup: CommandSetup;
  private readonly tools: Map<string, CommandTool>;
  /** Put before every argv: runs it without network, when `network: false` and the OS allows. */
  private argvPrefix: string[] = [];
  /** Aborted on close, so no command outlives the broker. */
  private readonly closing = new AbortController();
  private readonly sandbox: SandboxPlan | undefined;
  /** With a network allowlist: the proxy every run of the source reaches the network through. */
  private egress: EgressProxy | undefined;

  constructor(
    readonly name: string,
    private readonly config: CommandSourceConfig,
    private readonly log: Logger,
  ) {
    this.setup = commandSetup(config);
    this.tools = new Map(this.setup.tools.map((t) => [t.name, t]));
    this.sandbox = sandboxPlanOf(config.sandbox);
  }

  /** Checks that every tool's working directory is there (and what the preset needs in it). */
  async start(): Promise<void> {
    for (const tool of this.setup.tools) {
      const cwd = tool.cwd ?? this.config.cwd ?? process.cwd();
      if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory())
        this.fail(`the working directory ${cwd} of tool ${tool.name} is not a directory`);
      const needed = this.setup.requiresOneOf;
      if (needed.length > 0 && !needed.some((file) => existsSync(join(cwd, file)))) {
        this.fail(
          `${tool.argv[0]} needs ${needed.join(" or ")} in its working directory ${cwd}; set cwd to the project's folder`,
        );
      }
    }
    if (this.sandbox) await this.prepareSandbox(this.sandbox);
    else if (this.config.network === false) {
      const isolation = noNetworkPrefix();
      if ("prefix" in isolation) this.argvPrefix = isolation.prefix;
      else
        this.log.warn(
          { source: this.name, problem: isolation.problem },
          "network: false cannot be enforced here; the commands run WITH network access",
        );
    }
    this.log.info({ source: this.name, tools: this.tools.size }, "source up");
  }

  /**
   * Starts the egress proxy of a network allowlist, and makes each tool's
   * sandbox once without running it: a host without bubblewrap or cgroups,
   * a program not on the path or a grant that does not exist stops the
   * source here, saying so, rather than at its first call.
   */
  private async prepareSandbox(plan: SandboxPlan): Promise<void> {
    if (Array.isArray(plan.network)) {
      this.egress = new EgressProxy(this.name, plan.network, this.log);
      await this.egress.ready;
    }
    try {
      for (const tool of this.setup.tools) this.sandboxed(plan, tool, tool.argv, {}).release();
    } catch (err) {
      await this.egress?.close();
      throw err;
    }
  }

  /** The sandbox one run of `argv` (a tool's own argv, then its arguments) goes in. */
  private sandboxed(
    plan: SandboxPlan,
    tool: CommandTool,
    argv: readonly string[],
    env: Record<string, string>,
  ): SandboxedSpawn {
    const [command, ...args] = argv as [string, ...string[]];
    return sandboxedSpawn(
      this.name,
      plan,
      {
        command,
        args,
        env: { PATH: DEFAULT_PATH, ...env },
        cwd: tool.cwd ?? this.config.cwd ?? process.cwd(),
        configArgs: tool.argv.slice(1),
      },
      this.egress && { folder: this.egress.folder, socket: EGRESS_SOCKET },
    );
  }

  private fail(problem: string): never {
    throw new BrokerError("unavailable", `source ${this.name}: ${problem}`, { source: this.name });
  }

  instructions(): string | undefined {
    return undefined;
  }

  capabilities(): ServerCapabilities {
    return { tools: {} };
  }

  async listTools(): Promise<Tool[]> {
    return this.setup.tools.map((t) => ({
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
    const argv = [...this.argvPrefix, ...callArgv(tool, args)];
    const passed = tool.env ?? this.setup.env;
    const env: Record<string, string> = Object.fromEntries(
      passed.flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]!]])),
    );
    const outcome = await runCommand({
      sandbox: this.sandbox && this.sandboxed(this.sandbox, tool, argv, env),
      argv,
      cwd: tool.cwd ?? this.config.cwd,
      env,
      maxBytes: tool.max_bytes ?? this.config.max_bytes ?? DEFAULT_MAX_BYTES,
      timeoutMs: Math.min(
        tool.timeout_ms ?? this.setup.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        Math.max(ctx.deadline - Date.now(), 1),
      ),
      signal: AbortSignal.any([ctx.signal, this.closing.signal]),
    });
    if (outcome.kind !== "ok")
      this.log.debug({ source: this.name, tool: name, kind: outcome.kind }, "command failed");
    return commandResult(outcome, tool.output);
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.egress?.close();
  }
}
