/**
 * The answers of the meta tools, as every frontend puts them on the wire:
 * REST's bodies and the JSON text of MCP's tool results are these.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { RenderMode } from "../../config/schema.js";
import type { SourceStatus } from "../../contract/router.js";
import type { ToolEntry } from "../../tree/tree.js";

/** One child as `meta_tree` lists it. */
export interface EntrySummary {
  path: string;
  name: string;
  type: "node" | "tool";
  summary?: string;
}

export interface NodeListing {
  path: string;
  children: EntrySummary[];
  /** How many children the caller may see, where this lists a part of them. */
  total?: number;
  /** Where the next part starts, where more remain; `notice` then says so in words. */
  next_offset?: number;
  notice?: string;
}

export interface NodeDescription {
  path: string;
  type: "node";
  /** How many children the caller may see, where `children` are only the first of them. */
  children_total?: number;
  /** Then says, in words, how to list the rest. */
  notice?: string;
  summary?: string;
  description?: string;
  /** The state of the source mounted here, as /healthz gives it to admins. */
  source?: {
    name: string;
    state: SourceStatus["state"];
    up: boolean;
    restarts: number;
    attempts: number;
    error?: string;
    /** When and why it last went down while it was up (a crash, a sandbox's limit). */
    last_down?: string;
    /** What its sandbox lets it see and use, where it runs in one. */
    sandbox?: SandboxDescription;
  };
  children: EntrySummary[];
}

/** A source's sandbox as `meta_desc` shows it. */
export interface SandboxDescription {
  read: readonly string[];
  write: readonly string[];
  network: "none" | "all" | readonly string[];
  memory_mb: number;
  pids: number;
  open_files: number;
  cpu_s?: number;
}

export interface ToolDescription {
  path: string;
  type: "tool";
  summary: string;
  description: string;
  args_schema: ToolEntry["tool"]["inputSchema"];
  example_args?: Record<string, unknown>;
  output_schema?: ToolEntry["tool"]["outputSchema"];
  annotations?: ToolEntry["tool"]["annotations"];
  flat_name: string;
  render_mode: ToolEntry["renderMode"];
  max_output_chars?: number;
  timeout_s: number;
  /** The limits in force for this tool (tool, node or config, the nearest). */
  limits: { max_request_bytes?: number; max_result_items?: number; max_result_bytes?: number };
  /** Where its definition is not the one pinned (changed, new or suspicious), what differs. */
  pinning?: Record<string, unknown>;
}

export type EntryDescription = NodeDescription | ToolDescription;

/** One result of `meta_search`. */
export interface FoundTool {
  path: string;
  summary: string;
  score: number;
  /** The request's words the tool has, each with the fields that have it. */
  matched?: Record<string, readonly string[]>;
  /** Listed for the hit before it: the tool that finds the id that hit's `parameter` takes. */
  prerequisite_of?: { path: string; parameter: string };
  args_schema?: ToolEntry["tool"]["inputSchema"];
  /** The same as TypeScript, as `meta_desc` format typescript declares it for meta_run. */
  declaration?: string;
}

/** What `meta_search` answers. */
export interface SearchAnswer {
  results: FoundTool[];
  /** Said when the answer may be short of the whole tree: the index is still being built. */
  notice?: string;
}

/** What `meta_call` answers over REST; MCP answers with the tool's own result. */
export interface CallAnswer {
  path: string;
  is_error: boolean;
  output: unknown;
  /** The output was cut to the tool's `max_output_chars`. */
  truncated?: true;
  /** Redaction removed keys from the output. */
  redacted?: true;
  /** The idempotency key given did not keep this result, and why. */
  idempotency?: { kept: false; why: string };
}

/** Why a `meta_run` script failed. */
export type RunFailureKind =
  "script_error" | "timeout" | "memory" | "too_many_calls" | "result_too_large" | "refused";

/** What `meta_run` answers: what the script returned, or why it failed, and what it did. */
export interface RunAnswer {
  run_id: string;
  /** What the script returned, as JSON (`null` for nothing). */
  result?: unknown;
  error?: {
    kind: RunFailureKind;
    message: string;
    /** The line of the script it failed at, where known. */
    line?: number;
    /** For `refused` and a failed call the script let through: the call's error kind. */
    call_kind?: string;
  };
  logs: { level: "log" | "info" | "warn" | "error"; message: string }[];
  /** Calls the script made: tools called, searches, descriptions, listings. */
  calls: number;
  duration_ms: number;
  /** With `report_calls`: each call the script made, in the order they ended. */
  call_log?: { op: string; target: string; outcome: string; duration_ms: number }[];
}

/** A `meta_search` request, already checked. */
export interface ToolSearchRequest {
  readonly query: string;
  readonly limit: number;
  /** Only tools under this node. */
  readonly path: string;
  readonly includeSchema: boolean;
}

/** A call as the broker answers it, before a frontend puts it on the wire. */
export interface CallOutput {
  readonly path: string;
  readonly isError: boolean;
  readonly renderMode: RenderMode;
  /** True when `output` is the truncation wrapper. */
  readonly truncated: boolean;
  /** The result rendered by the tool's `render_mode`, truncated by `max_output_chars`. */
  readonly output: unknown;
  /** The result as the backend gave it, for MCP clients when nothing was rendered or cut. */
  readonly result: CallToolResult;
}

/** What `meta_desc` answers with `"format": "typescript"`. */
export interface TypescriptDescription {
  path: string;
  format: "typescript";
  /** TypeScript declarations of the tools under the path the caller may call. */
  declarations: string;
}
