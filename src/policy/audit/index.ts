import { digestOf } from "../../contract/digest.js";
import { asBrokerError } from "../../contract/errors.js";
import type { Link } from "../chain.js";
import { resultBytes } from "../result-bytes.js";

/** One call, as the audit trail keeps it: never the arguments, only their digest. */
export interface AuditRecord {
  time: string;
  token: string;
  path: string;
  /** `ok`, `tool_error` (the tool answered isError), or the error kind. */
  outcome: string;
  duration_ms: number;
  args_sha256: string;
  result_bytes: number;
}

/**
 * Writes one record per call, whatever its outcome, to `sink`. Outermost in
 * the chain, so refusals by the other links are recorded too.
 *
 * @example
 * compose([audit((record) => log.info(record, "audit"))], callSource)
 */
export function audit(sink: (record: AuditRecord, source: string) => void): Link {
  return async function auditLink(call, next) {
    const started = performance.now();
    const record = (outcome: string, resultBytes: number) =>
      sink(
        {
          time: new Date().toISOString(),
          token: call.ctx.principal.id,
          path: call.path,
          outcome,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          args_sha256: digestOf(call.args),
          result_bytes: resultBytes,
        },
        call.leaf.sourceId,
      );
    try {
      const result = await next(call);
      record(result.isError === true ? "tool_error" : "ok", resultBytes(result));
      return result;
    } catch (err) {
      record(asBrokerError(err).kind, 0);
      throw err;
    }
  };
}
