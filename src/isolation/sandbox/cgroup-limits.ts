import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { BrokerError } from "../../contract/errors.js";

const ROOT = "/sys/fs/cgroup";

/**
 * The memory and process limits of one sandboxed program and all it starts,
 * as cgroups: v1's `memory` and `pids` controllers, or v2's unified tree
 * where those are delegated. A process count held by `prlimit` alone does not
 * bind a program that is root outside its sandbox; a cgroup does.
 */
export class CgroupLimits {
  private constructor(
    private readonly dirs: { memory: string; pids: string },
    private readonly v2: boolean,
    private readonly limits: { memoryMb: number; pids: number },
  ) {}

  /** A cgroup (one per controller on v1) for a source, with its limits set. */
  static open(source: string, limits: { memoryMb: number; pids: number }): CgroupLimits {
    const name = `${source.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40)}-${randomUUID().slice(0, 8)}`;
    const v2 = existsSync(join(ROOT, "cgroup.controllers"));
    const dirs = v2
      ? { memory: join(ROOT, "mcp-broker", name), pids: join(ROOT, "mcp-broker", name) }
      : {
          memory: join(ROOT, "memory", "mcp-broker", name),
          pids: join(ROOT, "pids", "mcp-broker", name),
        };
    try {
      if (v2) {
        mkdirSync(join(ROOT, "mcp-broker"), { recursive: true });
        writeFileSync(join(ROOT, "mcp-broker", "cgroup.subtree_control"), "+memory +pids");
      }
      mkdirSync(dirs.memory, { recursive: true });
      mkdirSync(dirs.pids, { recursive: true });
      const bytes = String(limits.memoryMb * 1024 * 1024);
      if (v2) {
        writeFileSync(join(dirs.memory, "memory.max"), bytes);
        writeFileSync(join(dirs.memory, "memory.swap.max"), "0");
      } else writeFileSync(join(dirs.memory, "memory.limit_in_bytes"), bytes);
      writeFileSync(join(dirs.pids, "pids.max"), String(limits.pids));
    } catch (err) {
      throw new BrokerError(
        "unavailable",
        `the sandbox's memory and process limits need a cgroup the broker may create (${v2 ? "cgroup v2 with memory and pids delegated to it" : "cgroup v1 memory and pids controllers"}), and it may not: ${(err as NodeJS.ErrnoException).code ?? "refused"}. Run the broker as root or delegate the controllers to its user; the source never runs without its limits`,
      );
    }
    return new CgroupLimits(dirs, v2, limits);
  }

  /**
   * Puts a process and every process it has started so far (bubblewrap has
   * forked its sandboxed child by the time it waits) under the limits; all
   * they start from then on are under them too.
   */
  enter(pid: number): void {
    // The process first: what it starts from then on is born inside. Then what it started
    // before, walked again until a walk finds none left outside (a child may fork meanwhile).
    const moved = new Set<number>();
    for (let outside = [pid]; outside.length > 0;) {
      for (const member of outside) {
        this.move(member);
        moved.add(member);
      }
      outside = withDescendants(pid).filter((p) => !moved.has(p));
    }
  }

  private move(pid: number): void {
    try {
      writeFileSync(join(this.dirs.memory, "cgroup.procs"), String(pid));
      if (!this.v2) writeFileSync(join(this.dirs.pids, "cgroup.procs"), String(pid));
    } catch (err) {
      // A process that ended meanwhile has nothing left to limit.
      if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
    }
  }

  /** Which limit ended the program, where one did. */
  whyEnded(): string | undefined {
    const oom = this.v2
      ? counter(join(this.dirs.memory, "memory.events"), "oom_kill")
      : counter(join(this.dirs.memory, "memory.oom_control"), "oom_kill");
    if (oom > 0)
      return `it used its whole memory (sandbox.memory_mb, ${this.limits.memoryMb} MB) and was ended`;
    if (counter(join(this.dirs.pids, "pids.events"), "max") > 0)
      return `it tried to run more than its processes (sandbox.pids, ${this.limits.pids})`;
    return undefined;
  }

  /** Removes the cgroups, once nothing runs in them. */
  remove(): void {
    for (const dir of new Set([this.dirs.memory, this.dirs.pids])) {
      try {
        rmdirSync(dir);
      } catch {
        // Still in use by a process that has not ended yet: left for the kernel's own cleanup.
      }
    }
  }
}

/** A process and its descendants, from /proc's `children` lists. */
function withDescendants(pid: number): number[] {
  const found = [pid];
  for (let i = 0; i < found.length; i++) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${found[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${found[i]}/task/${task}/children`, "utf8");
        for (const child of children.split(" ").filter(Boolean)) found.push(Number(child));
      } catch {
        // The task ended meanwhile.
      }
    }
  }
  return found;
}

/** A `name value` line's value in a cgroup's events file; 0 where there is none. */
function counter(file: string, name: string): number {
  try {
    const line = readFileSync(file, "utf8")
      .split("\n")
      .find((l) => l.startsWith(`${name} `));
    return line ? Number(line.slice(name.length + 1)) : 0;
  } catch {
    return 0;
  }
}
