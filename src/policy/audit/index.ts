import { digestOf } from "../../contract/digest.js";
import { asBrokerError } from "../../contract/errors.js";
import { argumentsOf, type Link, type RequestKind } from "../link.js";
import { resultBytes } from "../result-bytes.js";

/** One request, as the audit trail keeps it: never the arguments, only their digest. */
export interface AuditRecord {
  time: string;
  token: string;
  /**
   * The kind of request: `tools/call`, `resources/read`, `prompts/get`…,
   * `meta_run` for a script, or `task` for a step of a task (its `outcome`:
   * proposed, approved, denied, executed, delivered, cancelled).
   */
  method: RequestKind | "meta_run" | "task";
  /** Where it was governed: the tool's leaf, or the source's node. */
  path: string;
  /** `ok`, `tool_error` (the tool answered isError), or the error kind. */
  outcome: string;
  duration_ms: number;
  args_sha256: string;
  result_bytes: number;
  /** The `meta_run` script the request was made by, or (for `meta_run`) the script's own id. */
  run_id?: string;
  /** The task a `task` record is a step of. */
  task_id?: string;
}

/**
 * A request as the audit link saw it, before the costly parts of its record
 * (the arguments' digest, the result's size) are worked out: the sink does
 * that with `auditRecord` after the answer has left, off the call's path.
 */
export interface AuditEntry extends Omit<AuditRecord, "args_sha256" | "result_bytes"> {
  readonly args: unknown;
  /** The result, when there is one. */
  readonly result?: object | undefined;
}

/** The record of an entry: the digest of its arguments and its result's size. */
export function auditRecord({ args, result, ...seen }: AuditEntry): AuditRecord {
  return {
    ...seen,
    args_sha256: digestOf(args),
    result_bytes: result === undefined ? 0 : resultBytes(result),
  };
}

/**
 * Hands `sink` one entry per request of every kind, whatever its outcome.
 * Outermost in the chain, so refusals by the other links are recorded too;
 * the digest of the arguments is computed with a bounded depth, so even
 * arguments the depth check refuses are recorded.
 *
 * @example
 * compose([audit((entry) => log.info(auditRecord(entry), "audit"))], callSource)
 */
export function audit(sink: (entry: AuditEntry, source: string) => void): Link {
  return async function auditLink(request, next) {
    const started = performance.now();
    const record = (outcome: string, result?: object) =>
      sink(
        {
          time: new Date().toISOString(),
          token: request.ctx.principal.id,
          method: request.kind,
          path: request.path,
          outcome,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          ...(request.ctx.runId === undefined ? {} : { run_id: request.ctx.runId }),
          args: argumentsOf(request),
          result,
        },
        request.source,
      );
    try {
      const result = await next(request);
      const toolError = request.kind === "tools/call" && "isError" in result && result.isError;
      record(toolError === true ? "tool_error" : "ok", result);
      return result;
    } catch (err) {
      record(asBrokerError(err).kind);
      throw err;
    }
  };
}
