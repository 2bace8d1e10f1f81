import type { SandboxSettings, SourceSandbox } from "../../config/sandbox-schema.js";

/** A sandbox's settings with every default filled in. */
export interface SandboxPlan {
  readonly read: readonly string[];
  readonly write: readonly string[];
  /** Nothing, everything, or the hosts it may reach through the broker's egress proxy. */
  readonly network: "none" | "all" | readonly string[];
  readonly memoryMb: number;
  readonly pids: number;
  readonly cpuS: number | undefined;
  readonly openFiles: number;
}

export const DEFAULT_SANDBOX = {
  memoryMb: 512,
  pids: 256,
  openFiles: 1024,
} as const;

/** The plan of a source's `sandbox`, or undefined where it runs unsandboxed. */
export function sandboxPlanOf(sandbox: SourceSandbox): SandboxPlan | undefined {
  if (sandbox === undefined || sandbox === false) return undefined;
  const settings: SandboxSettings = sandbox === true ? {} : sandbox;
  return {
    read: settings.fs?.read ?? [],
    write: settings.fs?.write ?? [],
    network: settings.network ?? "none",
    memoryMb: settings.memory_mb ?? DEFAULT_SANDBOX.memoryMb,
    pids: settings.pids ?? DEFAULT_SANDBOX.pids,
    cpuS: settings.cpu_s,
    openFiles: settings.open_files ?? DEFAULT_SANDBOX.openFiles,
  };
}
