import { digestOf } from "../../contract/digest.js";
import { asBrokerError } from "../../contract/errors.js";
import { argumentsOf, type Link, type RequestKind } from "../link.js";
import { resultBytes } from "../result-bytes.js";

/** One request, as the audit trail keeps it: never the arguments, only their digest. */
export interface AuditRecord {
  time: string;
  token: string;
  /** The kind of request: `tools/call`, `resources/read`, `prompts/get`… */
  method: RequestKind;
  /** Where it was governed: the tool's leaf, or the source's node. */
  path: string;
  /** `ok`, `tool_error` (the tool answered isError), or the error kind. */
  outcome: string;
  duration_ms: number;
  args_sha256: string;
  result_bytes: number;
}

/**
 * Writes one record per request of every kind, whatever its outcome, to
 * `sink`. Outermost in the chain, so refusals by the other links are recorded
 * too; the digest of the arguments is computed with a bounded depth, so even
 * arguments the depth check refuses are recorded.
 *
 * @example
 * compose([audit((record) => log.info(record, "audit"))], callSource)
 */
export function audit(sink: (record: AuditRecord, source: string) => void): Link {
  return async function auditLink(request, next) {
    const started = performance.now();
    const record = (outcome: string, bytes: number) =>
      sink(
        {
          time: new Date().toISOString(),
          token: request.ctx.principal.id,
          method: request.kind,
          path: request.path,
          outcome,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          args_sha256: digestOf(argumentsOf(request)),
          result_bytes: bytes,
        },
        request.source,
      );
    try {
      const result = await next(request);
      const toolError = request.kind === "tools/call" && "isError" in result && result.isError;
      record(toolError === true ? "tool_error" : "ok", resultBytes(result));
      return result;
    } catch (err) {
      record(asBrokerError(err).kind, 0);
      throw err;
    }
  };
}
