/**
 * The messages between the broker and a sandbox worker. A run is started
 * with its code and limits; while it runs, the worker asks the host for each
 * call the script makes and gets its answer as JSON text; the run ends with
 * its outcome. `cancel` stops a run that waits for the host; one that is
 * computing is stopped by its shared stop flag, which the worker's interrupt
 * handler reads.
 */

/** Why a run failed, as the worker sees it; the broker adds the kinds only it can tell. */
export type WorkerFailureKind = "script_error" | "memory" | "result_too_large" | "interrupted";

export interface LogEntry {
  readonly level: "log" | "info" | "warn" | "error";
  readonly message: string;
}

export interface ScriptLimits {
  /** The run's heap, in bytes: its engine's memory grows this far past the engine's own. */
  readonly memoryBytes: number;
  /** The QuickJS runtime's stack, in bytes: deep recursion ends as an error, not a crash. */
  readonly stackBytes: number;
  /** The longest JSON text of a result. */
  readonly maxResultChars: number;
  /** Log entries kept, and characters in all; the rest are dropped and one entry says so. */
  readonly maxLogEntries: number;
  readonly maxLogChars: number;
}

/** How a run ended: the JSON text of its result, or why it failed. */
export type ScriptEnd =
  | { readonly ok: true; readonly resultJson: string }
  | {
      readonly ok: false;
      readonly kind: WorkerFailureKind;
      readonly message: string;
      readonly line?: number | undefined;
      /** The kind of the failed call whose error the script let through, if that ended it. */
      readonly callKind?: string | undefined;
    };

export type ScriptOutcome = ScriptEnd & { readonly logs: readonly LogEntry[] };

export type ToWorker =
  | {
      readonly type: "run";
      readonly run: number;
      /** Whose run it is: an engine serves one caller's runs only. */
      readonly owner: string;
      readonly code: string;
      readonly limits: ScriptLimits;
      /** Epoch milliseconds after which the script is interrupted. */
      readonly deadline: number;
      /** Set to 1 by the broker to stop the run wherever it is. */
      readonly stop: SharedArrayBuffer;
    }
  | { readonly type: "answer"; readonly run: number; readonly seq: number; readonly json: string }
  | { readonly type: "cancel"; readonly run: number };

export type FromWorker =
  | { readonly type: "ready" }
  | {
      readonly type: "ask";
      readonly run: number;
      readonly seq: number;
      readonly op: string;
      readonly json: string;
    }
  | { readonly type: "done"; readonly run: number; readonly outcome: ScriptOutcome };
