/**
 * Messages between the broker and a job process (isolation/job-process.ts
 * on the broker's side, isolation/serve-jobs.ts in the child). Sent over
 * Node's IPC channel with its "advanced" serialization, so buffers pass as
 * they are.
 */
import type { ErrorKind } from "../contract/errors.js";

/** What a job process is told when it starts: the second argument of its command line, as JSON. */
export interface JobProcessSettings {
  /** The largest reply the child may send, serialized; a larger one is refused in the child. */
  readonly maxReplyBytes: number;
}

export interface JobRequest {
  readonly id: number;
  readonly job: unknown;
}

/** A failure the child reports in words a caller may read. */
export interface JobFailure {
  readonly kind: ErrorKind;
  readonly message: string;
  readonly details?: Record<string, unknown> | undefined;
}

export type JobReply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly failure: JobFailure };

/** The child's first message: it has loaded what it needs and takes jobs. */
export interface ReadyMessage {
  readonly ready: true;
}
