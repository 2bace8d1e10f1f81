import type { Logger } from "../../contract/log.js";
import type { StdioSourceConfig } from "./config.js";
import type { ConnectBackend } from "./backend-transport.js";
import { childEnvironment } from "./child-environment.js";
import { commandArgv } from "./command-line.js";
import { ProcessGroupStdio } from "./process-group-stdio.js";
import { OutputLines } from "../output-lines.js";
import { sandboxPlanOf } from "../../isolation/sandbox/sandbox-plan.js";
import { sandboxedSpawn, type ProgramExit } from "../../isolation/sandbox/sandboxed-spawn.js";
import { EGRESS_SOCKET, EgressProxy } from "../../net/egress-proxy.js";

/** The last lines of a server's stderr that a failed start quotes. */
const LAST_WORDS = 3;
/**
 * The longest message a backend may send on stdout: past it the transport drops
 * the connection (the source restarts) rather than buffer without end. Well
 * above the 16 MiB a result may have by default, so a large answer is
 * refused by `max_result_bytes` in words, not by a restart; the SDK's own
 * default (10 MiB) was below it.
 */
export const MAX_STDIO_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * A backend run as a child process speaking MCP on stdin/stdout, leading a
 * process group of its own, which ends with it (ProcessGroupStdio). Its
 * stderr goes to the broker's log, at warn, with the source's name, as much
 * as OutputLines lets through: never into an answer, since a backend may
 * print a connection string or a token.
 */
export function stdioBackend(name: string, config: StdioSourceConfig, log: Logger): ConnectBackend {
  const argv = commandArgv(config.command);
  const [command, ...args] = argv as [string, ...string[]];
  const plan = sandboxPlanOf(config.sandbox);
  return () => {
    const env = childEnvironment(config.env);
    // A network allowlist is the broker's egress proxy, one per start of the program.
    const egress =
      plan && Array.isArray(plan.network) ? new EgressProxy(name, plan.network, log) : undefined;
    const sandbox =
      plan &&
      closingOnThrow(egress, () =>
        sandboxedSpawn(
          name,
          plan,
          {
            command,
            args,
            // Only PATH and its own env (the sandbox adds HOME and LANG): not USER, SHELL or TERM.
            env: { PATH: env.PATH ?? "", ...config.env },
            cwd: config.cwd ?? process.cwd(),
          },
          egress && { folder: egress.folder, socket: EGRESS_SOCKET },
        ),
      );
    const transport = new ProcessGroupStdio({
      command: sandbox?.command ?? command,
      args: sandbox?.args ?? args,
      env: sandbox?.env ?? env,
      cwd: config.cwd,
      maxBufferSize: MAX_STDIO_MESSAGE_BYTES,
      ...(sandbox && {
        hold: async (pid: number) => {
          await egress?.ready;
          sandbox.enter(pid);
        },
        ended: (exit: ProgramExit) => {
          sandbox.release(exit);
          void egress?.close();
        },
      }),
    });
    const stderr = new OutputLines(
      (line) => log.warn({ source: name, stderr: line }, "source stderr"),
      (count, sentence) =>
        log.warn({ source: name, left_out: count }, `source stderr: ${sentence}`),
      LAST_WORDS,
    );
    transport.stderr.on("data", (chunk: Buffer) => stderr.write(chunk));
    transport.stderr.on("end", () => stderr.end());
    return {
      transport,
      // The program only: its arguments may carry credentials.
      describe: sandbox ? `"${command}" in its sandbox` : `"${command}"`,
      lastWords: () => stderr.last(),
      pid: () => transport.pid,
      exited: () => transport.exited(),
      ...(sandbox && { whyEnded: () => sandbox.whyEnded(transport.exitStatus) }),
    };
  };
}

/** `make()`, closing `egress` when it throws: a source that cannot start leaves no proxy behind. */
function closingOnThrow<T>(egress: EgressProxy | undefined, make: () => T): T {
  try {
    return make();
  } catch (err) {
    void egress?.close();
    throw err;
  }
}
