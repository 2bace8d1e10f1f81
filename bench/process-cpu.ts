import { readFileSync } from "node:fs";

/** CPU seconds (user + system) a process has used so far, from /proc; 0 where there is no /proc. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** A process's resident memory (VmRSS) in KB, from /proc; throws where it cannot be read. */
export function residentKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`/proc/${pid}/status has no VmRSS`);
  return Number(kb);
}

/** Direct children of a process, from /proc (Linux). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** A process's children, their children, and so on. */
export function descendantPids(pid: number): number[] {
  return childPids(pid).flatMap((child) => [child, ...descendantPids(child)]);
}
