import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import { JobPool } from "../../isolation/job-pool.js";
import { JobStopped } from "../../isolation/job-process.js";
import type { HealthReport, ServiceCall } from "../../registry/tool-service.js";
import type { BuiltinToolset } from "../builtin-toolset.js";
import { DOCUMENT_ANALYZER } from "./definition.js";
import {
  ANALYSIS_TYPES,
  type AnalysisType,
  type DocumentJob,
  type DocumentLimits,
} from "./document-job.js";
import { fetchDocument, type FetchSettings } from "./fetch-document.js";

// The job process is a file of its own: `.ts` when the broker runs from source.
const DOCUMENT_PROCESS = new URL(
  `./document-process${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  import.meta.url,
);

export interface DocumentSettings extends FetchSettings {
  readonly limits: DocumentLimits;
  /** Heap of a document process, in MiB. */
  readonly maxMemoryMb: number;
  /** Processes that read documents at once. */
  readonly processes: number;
  /** The largest answer, serialized. */
  readonly maxReplyBytes: number;
}

/**
 * `extract_text` and `analyze_document`, the predefined document analyzer, on a document fetched
 * with care (in the broker: the address policy and roots live here), then
 * read and analyzed in processes of their own (isolation/), bounded in time
 * (`timeout_s`), memory, pages, unpacked size and characters.
 */
export class DocumentAnalyzer implements BuiltinToolset {
  readonly definition = DOCUMENT_ANALYZER;
  private readonly pool: JobPool;

  constructor(
    private readonly settings: DocumentSettings,
    log: Logger,
  ) {
    this.pool = new JobPool({
      module: DOCUMENT_PROCESS,
      name: "document analyzer",
      processes: settings.processes,
      maxMemoryMb: settings.maxMemoryMb,
      maxReplyBytes: settings.maxReplyBytes,
      idleMs: 60_000,
      maxWaitingPerCaller: 8,
      maxWaiting: 64,
      log,
    });
  }

  async call({ functionName, args, signal, caller }: ServiceCall): Promise<unknown> {
    const url = String(args.document_url);
    if (functionName !== "extract_text" && functionName !== "analyze_document") {
      throw new BrokerError(
        "not_found",
        `the document analyzer has no function "${functionName}"`,
        { function: functionName },
      );
    }
    const { bytes } = await fetchDocument(url, this.settings, signal);
    const fetched = { url, bytes, limits: this.settings.limits };
    const job: DocumentJob =
      functionName === "extract_text"
        ? {
            ...fetched,
            op: "extract",
            format: typeof args.format === "string" ? args.format : undefined,
          }
        : { ...fetched, op: "analyze", analysis: analysisOf(args.analysis_type) };
    try {
      const read = (await this.pool.run(caller, job, {
        timeoutMs: this.settings.timeoutMs,
        signal,
      })) as Record<string, unknown>;
      return { document_url: url, ...read };
    } catch (err) {
      if (!(err instanceof JobStopped)) throw err;
      throw stopped(err, this.settings);
    }
  }

  async check(): Promise<HealthReport> {
    return { healthy: true };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function analysisOf(asked: unknown): AnalysisType {
  return ANALYSIS_TYPES.find((type) => type === asked) ?? "summary";
}

/** Why reading a document was stopped, in words its caller can act on. */
function stopped(err: JobStopped, settings: DocumentSettings): BrokerError {
  switch (err.reason) {
    case "timeout":
      return new BrokerError(
        "invalid_params",
        `reading the document took longer than ${settings.timeoutMs / 1000} s (toolsets.documents.timeout_s); it was stopped`,
      );
    case "memory":
      return new BrokerError(
        "invalid_params",
        `reading the document needed more than ${settings.maxMemoryMb} MB of memory (toolsets.documents.max_memory_mb); it was stopped`,
      );
    case "crashed":
      return new BrokerError(
        "execution_failed",
        "the document analyzer failed; see the broker log",
      );
  }
}
