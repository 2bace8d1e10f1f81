import { createWriteStream, type WriteStream } from "node:fs";
import type { AuditRecord } from "../policy/audit/index.js";
import type { Logger } from "../contract/log.js";
import type { BrokerMetrics } from "./metrics.js";

/** Where audit records go: the log, the metrics, and optionally a JSONL file. */
export class AuditSink {
  private readonly file: WriteStream | undefined;

  constructor(
    private readonly log: Logger,
    private readonly metrics: BrokerMetrics,
    file?: string,
  ) {
    this.file = file === undefined ? undefined : createWriteStream(file, { flags: "a" });
    this.file?.on("error", (err) =>
      log.error({ err: err.message, file }, "audit file write failed"),
    );
  }

  readonly write = (record: AuditRecord, source: string): void => {
    this.log.info({ audit: record }, record.method === "tools/call" ? "call" : "request");
    this.metrics.observeRequest(source, record.method, record.outcome, record.duration_ms / 1000);
    this.file?.write(JSON.stringify(record) + "\n");
  };

  close(): Promise<void> {
    const file = this.file;
    return file === undefined ? Promise.resolve() : new Promise((resolve) => file.end(resolve));
  }
}
