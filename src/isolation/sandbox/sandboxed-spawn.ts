import { constants } from "node:os";
import { BrokerError } from "../../contract/errors.js";
import { bwrapCommand } from "./bwrap-command.js";
import { CgroupLimits } from "./cgroup-limits.js";
import { programPath } from "./program-path.js";
import type { SandboxPlan } from "./sandbox-plan.js";
import type { SandboxedRun } from "./bwrap-command.js";

/** How a program ended: its exit code, or the signal that ended it. */
export interface ProgramExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** What to spawn for a sandboxed program, and its limits to put in place before it runs. */
export interface SandboxedSpawn {
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
  /** Puts the started process under its cgroup limits (before it is released). */
  enter(pid: number): void;
  /** Which limit ended it, where one did (kept past `release`), seeing how it ended. */
  whyEnded(exit?: ProgramExit): string | undefined;
  /** Gives the limits back, once the program has ended, keeping what ended it. */
  release(exit?: ProgramExit): void;
}

/**
 * The descriptor a sandboxed program waits on until its limits are in place:
 * the fourth of its stdio (`["pipe", "pipe", "pipe", "pipe"]`), closed by
 * the spawner once `enter` has run.
 */
export const HOLD_FD = 3;

/** The programs a sandbox needs from the host, by name: Debian's `bubblewrap` and `util-linux`. */
const NEEDED = { bwrap: "bubblewrap", prlimit: "util-linux" } as const;

/** Where the host's sandbox programs are, or the first it lacks and the Debian package that has it. */
export function sandboxTools():
  | { readonly found: Record<keyof typeof NEEDED, string> }
  | { readonly missing: keyof typeof NEEDED; readonly pkg: string } {
  const hostPath = process.env.PATH ?? "/usr/bin:/bin";
  const found: Partial<Record<keyof typeof NEEDED, string>> = {};
  for (const [name, pkg] of Object.entries(NEEDED) as [keyof typeof NEEDED, string][]) {
    const file = programPath(name, `${hostPath}:/usr/bin:/bin`, "/");
    if (!file) return { missing: name, pkg };
    found[name] = file;
  }
  return { found: found as Record<keyof typeof NEEDED, string> };
}

/**
 * A program of `source` to run in a sandbox: `prlimit` (open files, CPU
 * seconds) around bubblewrap (the file system, namespaces, environment),
 * which waits on HOLD_FD until the process is in its cgroups (memory,
 * processes). A host without bubblewrap, or where the broker may not create
 * cgroups, refuses to start the source, saying what it needs: a sandboxed
 * source never runs unsandboxed.
 */
export function sandboxedSpawn(
  source: string,
  plan: SandboxPlan,
  run: SandboxedRun,
  /** With a network allowlist: where the broker's egress proxy listens. */
  egress?: { folder: string; socket: string },
): SandboxedSpawn {
  const host = sandboxTools();
  if ("missing" in host) {
    const { missing, pkg } = host;
    throw new BrokerError(
      "unavailable",
      `source ${source} runs in a sandbox, which needs ${missing} (Debian's ${pkg}: apt-get install -y ${pkg}); it is not installed, and the source is not run without its sandbox`,
    );
  }
  const tools = host.found;
  const inner = bwrapCommand(tools.bwrap, plan, run, HOLD_FD, egress);
  const limits = CgroupLimits.open(source, plan);
  let verdict: string | undefined;
  let released = false;
  return {
    command: tools.prlimit,
    args: [
      `--nofile=${plan.openFiles}:${plan.openFiles}`,
      // SIGXCPU at the limit says what ended it; SIGKILL a second later, for a program that ignores it.
      ...(plan.cpuS === undefined ? [] : [`--cpu=${plan.cpuS}:${plan.cpuS + 1}`]),
      "--",
      inner.command,
      ...inner.args,
    ],
    env: inner.env,
    enter: (pid) => limits.enter(pid),
    whyEnded: (exit) => (released ? verdict : (limits.whyEnded() ?? cpuSpent(plan, exit))),
    release: (exit) => {
      if (released) return;
      verdict = limits.whyEnded() ?? cpuSpent(plan, exit);
      released = true;
      limits.remove();
    },
  };
}

/**
 * Whether the program was ended by its CPU limit: SIGXCPU, seen directly or
 * as bubblewrap passes a child's death on (128 + the signal's number).
 */
function cpuSpent(plan: SandboxPlan, exit: ProgramExit | undefined): string | undefined {
  if (plan.cpuS === undefined || exit === undefined) return undefined;
  const xcpu = exit.signal === "SIGXCPU" || exit.code === 128 + constants.signals.SIGXCPU;
  return xcpu ? `it used its CPU time (sandbox.cpu_s, ${plan.cpuS} s) and was ended` : undefined;
}
