import { spawn } from "node:child_process";

/** How one run of a command ended, as the command left it: nothing guessed. */
export type CommandOutcome =
  | { readonly kind: "ok"; readonly stdout: string; readonly stderr: string }
  | {
      readonly kind: "exit" | "timeout" | "too_large" | "spawn_failed";
      readonly exitCode: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly stdout: string;
      readonly stderr: string;
      readonly message: string;
    };

export interface CommandRun {
  readonly argv: readonly string[];
  readonly cwd?: string | undefined;
  /** The child's whole environment: nothing else of the broker's reaches it. */
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** stdout beyond this is not read: the run stops and says so. */
  readonly maxBytes: number;
  readonly signal?: AbortSignal | undefined;
}

/** stderr is kept to this much: enough for any error message, never a memory risk. */
export const STDERR_BYTES = 8192;

/**
 * Runs `argv` with no shell, in a process group of its own, and waits for
 * it. A timeout, a cancellation or too much output kills the whole group,
 * so nothing it started outlives it.
 */
export function runCommand(run: CommandRun): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const [program, ...args] = run.argv;
    const child = spawn(program!, args, {
      cwd: run.cwd,
      env: { ...run.env },
      detached: true,
      shell: false,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    let stopped: { kind: "timeout" | "too_large"; message: string } | undefined;

    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    };
    const stop = (kind: "timeout" | "too_large", message: string) => {
      stopped ??= { kind, message };
      killGroup();
    };
    const timer = setTimeout(
      () => stop("timeout", `the command ran longer than ${run.timeoutMs} ms and was stopped`),
      run.timeoutMs,
    );
    const onAbort = () => stop("timeout", "the call was cancelled; the command was stopped");
    run.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout!.on("data", (chunk: Buffer) => {
      if (stopped) return;
      const room = run.maxBytes - stdoutBytes;
      if (chunk.length > room) {
        stdout.push(chunk.subarray(0, Math.max(room, 0)));
        stdoutBytes = run.maxBytes;
        stop(
          "too_large",
          `the command printed more than ${run.maxBytes} bytes; reading stopped there`,
        );
        return;
      }
      stdout.push(chunk);
      stdoutBytes += chunk.length;
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      const room = STDERR_BYTES - stderrBytes;
      if (room <= 0) return;
      stderr.push(chunk.subarray(0, room));
      stderrBytes += Math.min(chunk.length, room);
    });

    const finish = (outcome: CommandOutcome) => {
      clearTimeout(timer);
      run.signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    child.on("error", (err) =>
      finish({
        kind: "spawn_failed",
        exitCode: null,
        signal: null,
        stdout: "",
        stderr: "",
        message: `could not start ${program}: ${err.message}`,
      }),
    );
    // Children the command left behind go with it; until they do, they would hold its
    // output pipes open and keep the call waiting.
    child.on("exit", killGroup);
    child.on("close", (exitCode, signal) => {
      const out = Buffer.concat(stdout).toString("utf8");
      const err = Buffer.concat(stderr).toString("utf8");
      if (stopped) {
        finish({
          kind: stopped.kind,
          exitCode,
          signal,
          stdout: out,
          stderr: err,
          message: stopped.message,
        });
      } else if (exitCode !== 0) {
        const how = signal ? `was killed by ${signal}` : `exited with ${exitCode}`;
        finish({
          kind: "exit",
          exitCode,
          signal,
          stdout: out,
          stderr: err,
          message: `the command ${how}`,
        });
      } else {
        finish({ kind: "ok", stdout: out, stderr: err });
      }
    });
  });
}
