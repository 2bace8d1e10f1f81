import type { RunConfig } from "../config/schema.js";
import type { ScriptLimits } from "../isolation/script-sandbox/protocol.js";
import type { ScriptSandboxOptions } from "../isolation/script-sandbox/script-sandbox.js";

/** What one `meta_run` script may spend, unless its request says otherwise. */
export interface RunSettings {
  readonly timeoutS: number;
  readonly maxCalls: number;
  /** Calls of one script in flight at once; more wait for one to end. */
  readonly maxConcurrentCalls: number;
  readonly limits: ScriptLimits;
}

/**
 * A script's settings from the config's `run` section: read at each run, so
 * that a reload applies to the next script.
 */
export function runSettingsOf(config: RunConfig | undefined): RunSettings {
  return {
    timeoutS: config?.timeout_s ?? 30,
    maxCalls: config?.max_calls ?? 100,
    maxConcurrentCalls: config?.max_concurrent_calls ?? 8,
    limits: {
      memoryBytes: (config?.memory_mb ?? 64) * 1024 * 1024,
      // QuickJS's own guard against deep recursion; half a megabyte is ~10,000 frames.
      stackBytes: 512 * 1024,
      maxResultChars: config?.max_result_chars ?? 1_000_000,
      maxLogEntries: 200,
      maxLogChars: 20_000,
    },
  };
}

/**
 * How many scripts run at once and wait, from the config's `run` section: the
 * threads are started once, so these need a restart. Eight runs share a
 * thread, taking turns whenever one waits for a call.
 */
export function sandboxPoolOf(config: RunConfig | undefined): Omit<ScriptSandboxOptions, "log"> {
  return {
    workers: config?.workers ?? 2,
    runsPerWorker: 8,
    maxWaiting: config?.max_waiting ?? 256,
    maxWaitingPerCaller: config?.max_waiting_per_caller ?? 16,
  };
}
