import { createWriteStream, type WriteStream } from "node:fs";
import { auditRecord, type AuditEntry, type AuditRecord } from "../policy/audit/index.js";
import type { Logger } from "../contract/log.js";
import type { BrokerMetrics } from "./metrics.js";

/**
 * Where audit records go: the metrics at once; the log (unless told
 * otherwise) and optionally a JSONL file, in batches after the calls'
 * answers have left: the digest of the arguments, the result's size and the
 * writing cost the calls nothing. Listeners (the console's live traffic)
 * hear every record as it is written.
 */
export class AuditSink {
  private readonly file: WriteStream | undefined;
  private readonly listeners = new Set<(record: AuditRecord, source: string) => void>();
  private queue: { entry: AuditEntry; source: string }[] = [];
  private flushing: NodeJS.Immediate | undefined;

  constructor(
    private readonly log: Logger,
    private readonly metrics: BrokerMetrics,
    file?: string,
    /** Whether records also go to the log, as an access log: a reload may change it. */
    public logRecords = true,
  ) {
    this.file = file === undefined ? undefined : createWriteStream(file, { flags: "a" });
    this.file?.on("error", (err) =>
      log.error({ err: err.message, file }, "audit file write failed"),
    );
  }

  readonly write = (entry: AuditEntry, source: string): void => {
    this.metrics.observeRequest(source, entry.method, entry.outcome, entry.duration_ms / 1000);
    this.queue.push({ entry, source });
    this.flushing ??= setImmediate(() => this.flush());
  };

  /** Calls `listener` with every record from now on; returns the function that stops it. */
  listen(listener: (record: AuditRecord, source: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): Promise<void> {
    if (this.flushing) clearImmediate(this.flushing);
    this.flush();
    const file = this.file;
    return file === undefined ? Promise.resolve() : new Promise((resolve) => file.end(resolve));
  }

  private flush(): void {
    this.flushing = undefined;
    const entries = this.queue;
    this.queue = [];
    if (entries.length === 0) return;
    const lines: string[] = [];
    for (const { entry, source } of entries) {
      let record: AuditRecord;
      try {
        record = auditRecord(entry);
      } catch (err) {
        // Nothing in the audit path may take the broker down; the call has been answered.
        this.log.error({ err: (err as Error).message, path: entry.path }, "an audit record failed");
        continue;
      }
      if (this.logRecords)
        this.log.info({ audit: record }, record.method === "tools/call" ? "call" : "request");
      if (this.file) lines.push(JSON.stringify(record));
      for (const listener of this.listeners) {
        try {
          listener(record, source);
        } catch (err) {
          this.log.error({ err }, "an audit listener failed");
        }
      }
    }
    if (this.file) this.file.write(lines.join("\n") + "\n");
  }
}
