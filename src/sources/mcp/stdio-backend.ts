import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { Logger } from "../../contract/log.js";
import type { StdioSourceConfig } from "./config.js";
import type { ConnectBackend } from "./backend-transport.js";
import { commandArgv } from "./command-line.js";

const STDERR_LINES_KEPT = 20;
/**
 * The longest message a backend may send on stdout: past it the SDK drops
 * the connection (the source restarts) rather than buffer without end. Well
 * above the 16 MiB a result may have by default, so a large answer is
 * refused by `max_result_bytes` in words, not by a restart; the SDK's own
 * default (10 MiB) was below it.
 */
export const MAX_STDIO_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * The SDK probes a backend's revision on a second, short-lived copy of the
 * process when it owns the transport; a subclass is probed on the connection
 * itself. One process per start: a backend's start-up may be slow or do work.
 */
class InPlaceStdio extends StdioClientTransport {
  private spawned = false;
  /** Whether the process had already ended when it was first asked to close; unset until then. */
  private endedFirst: boolean | undefined;

  override async start(): Promise<void> {
    await super.start();
    this.spawned = true;
  }

  override close(): Promise<void> {
    this.endedFirst ??= this.spawned && this.pid === null;
    return super.close();
  }

  /** Whether the process ended by itself, not because the broker or the SDK closed it. */
  exited(): boolean {
    return this.spawned && this.pid === null && (this.endedFirst ?? true);
  }
}

/**
 * A backend run as a child process speaking MCP on stdin/stdout. Its stderr
 * goes to the broker's log, at warn, with the source's name: never into an
 * answer, since a backend may print a connection string or a token.
 */
export function stdioBackend(name: string, config: StdioSourceConfig, log: Logger): ConnectBackend {
  const argv = commandArgv(config.command);
  const [command, ...args] = argv as [string, ...string[]];
  const stderrTail: string[] = [];
  return () => {
    const transport = new InPlaceStdio({
      command,
      args,
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: config.cwd,
      stderr: "pipe",
      maxBufferSize: MAX_STDIO_MESSAGE_BYTES,
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        const text = line.trim();
        if (text === "") continue;
        stderrTail.push(text.slice(0, 500));
        if (stderrTail.length > STDERR_LINES_KEPT) stderrTail.shift();
        log.warn({ source: name, stderr: text }, "source stderr");
      }
    });
    return {
      transport,
      // The program only: its arguments may carry credentials.
      describe: `"${command}"`,
      lastWords: () => stderrTail.slice(-3),
      pid: () => transport.pid,
      exited: () => transport.exited(),
    };
  };
}
