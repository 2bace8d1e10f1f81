import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { HOLD_FD, type SandboxedSpawn } from "../../isolation/sandbox/sandboxed-spawn.js";

/** How one run of a command ended, as the command left it: nothing guessed. */
export type CommandOutcome =
  | { readonly kind: "ok"; readonly stdout: string; readonly stderr: string }
  | {
      readonly kind: "exit" | "timeout" | "too_large" | "spawn_failed" | "sandbox_limit";
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
  /** Where the command runs in a sandbox: what to spawn instead of `argv`, and its limits. */
  readonly sandbox?: SandboxedSpawn | undefined;
}

/** stderr is kept to this much: enough for any error message, never a memory risk. */
export const STDERR_BYTES = 8192;

/**
 * Runs `argv` with no shell, in a process group of its own, and waits for
 * it. A timeout, a cancellation or too much output kills the whole group,
 * so nothing it started outlives it. In a sandbox, the command waits until
 * it is under its limits, and a limit that ended it says so.
 */
export function runCommand(run: CommandRun): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const [program, ...args] = run.argv;
    const { sandbox } = run;
    const child = spawn(sandbox?.command ?? program!, sandbox?.args ?? args, {
      cwd: run.cwd,
      env: { ...(sandbox?.env ?? run.env) },
      detached: true,
      shell: false,
      stdio: sandbox ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    let stopped: { kind: "timeout" | "too_large" | "spawn_failed"; message: string } | undefined;

    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    };
    const stop = (kind: "timeout" | "too_large" | "spawn_failed", message: string) => {
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
    if (sandbox) {
      child.on("spawn", () => {
        const gate = child.stdio[HOLD_FD] as Writable;
        // Once released, the command may close its end at any time: that is no error of ours.
        gate.on("error", () => undefined);
        try {
          sandbox.enter(child.pid!);
          gate.end("go");
        } catch (err) {
          stop(
            "spawn_failed",
            `could not put the command under its sandbox's limits: ${(err as Error).message}`,
          );
        }
      });
    }
    child.on("error", (err) => {
      sandbox?.release();
      finish({
        kind: "spawn_failed",
        exitCode: null,
        signal: null,
        stdout: "",
        stderr: "",
        message: `could not start ${program}: ${err.message}`,
      });
    });
    // Children the command left behind go with it; until they do, they would hold its
    // output pipes open and keep the call waiting.
    child.on("exit", killGroup);
    child.on("close", (exitCode, signal) => {
      const out = Buffer.concat(stdout).toString("utf8");
      const err = Buffer.concat(stderr).toString("utf8");
      sandbox?.release({ code: exitCode, signal });
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
        // A limit it met and got past (a process it could not start) did not end it: only
        // a command that failed was ended by one.
        const limit = sandbox?.whyEnded();
        const how = signal ? `was killed by ${signal}` : `exited with ${exitCode}`;
        finish({
          kind: limit === undefined ? "exit" : "sandbox_limit",
          exitCode,
          signal,
          stdout: out,
          stderr: err,
          message:
            limit === undefined ? `the command ${how}` : `its sandbox ended the command: ${limit}`,
        });
      } else {
        finish({ kind: "ok", stdout: out, stderr: err });
      }
    });
  });
}
