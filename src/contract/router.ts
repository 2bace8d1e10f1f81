/**
 * The contract every source implements: the `wasix:mcp@25.3.26` router interface
 * in TypeScript, with the MCP SDK's types as payloads. WIT names are
 * given beside each member. A source adapts one kind of backend to this and
 * knows nothing of auth, limits or wire formats.
 */
import type {
  CallToolResult,
  ClientCapabilities,
  ClientResult,
  CompleteRequest,
  CompleteResult,
  GetPromptRequest,
  GetPromptResult,
  Implementation,
  ListPromptsRequest,
  ListPromptsResult,
  ListResourcesRequest,
  ListResourcesResult,
  ListResourceTemplatesRequest,
  ListResourceTemplatesResult,
  LoggingLevel,
  LoggingMessageNotification,
  Progress,
  ReadResourceRequest,
  ReadResourceResult,
  ResourceUpdatedNotification,
  ServerCapabilities,
  ServerNotification,
  ServerRequest,
  Tool,
} from "@modelcontextprotocol/server";

/** Who is calling, as established by a frontend's authentication. */
export interface Principal {
  /** Token id, or `anonymous` where no auth is configured. */
  readonly id: string;
  /** Path-glob scopes such as `call:/cms/**`. */
  readonly scopes: readonly string[];
}

/**
 * What a frontend knows of one request, and nothing about wire formats:
 * everything a source needs but its deadline, which is the policy's (the
 * timeout in force at the path, or the one the caller asked for).
 */
export interface CallerContext {
  /** Aborted on timeout, on client cancellation and on disconnect. */
  readonly signal: AbortSignal;
  readonly principal: Principal;
  /** Progress reported by the backend, for the caller. */
  progress?(p: Progress): void;
  /**
   * Server-to-client requests raised during the call (sampling, elicitation,
   * roots). `key` is the name a 2026-07-28 backend gave it among its input
   * requests, kept where the client is asked in that revision too.
   */
  request?(r: ServerRequest, signal?: AbortSignal, key?: string): Promise<ClientResult>;
  /** What the caller's client said it can be asked (sampling, elicitation, roots). */
  readonly clientCapabilities?: ClientCapabilities | undefined;
  /** Notifications raised during the call that belong to its caller (logging). */
  notify?(n: ServerNotification): void;
  /** Told when redaction removed something from the answer, for a caller that shows it. */
  redacted?(): void;
  /** Told when an idempotency key did not keep the result (why), for a caller that shows it. */
  unkept?(why: string): void;
  /** The client session the call came from: a shared backend's requests go back to it only. */
  readonly session?: string;
  /** The caller's id for this call (the registry's `call_id`), passed to backends that take one. */
  readonly callId?: string | undefined;
  /**
   * A timeout the caller asked for (the registry's `timeout`), in place of
   * the one in force at the path.
   */
  readonly timeoutMs?: number | undefined;
  /** From `Idempotency-Key` or `_meta.idempotencyKey`: a repeat returns the first result. */
  readonly idempotencyKey?: string | undefined;
  /** The `meta_run` script this call was made by: its audit record and span say so. */
  readonly runId?: string | undefined;
  /**
   * The call is followed as this task (REST's `Prefer: respond-async`, MCP's
   * Tasks extension): one that must wait for an approval is answered with
   * its task at once, under this id.
   */
  readonly asTask?: string | undefined;
  /**
   * The binding of the approval this call carries out: set by the broker
   * alone, once, for the approved task it runs; never from a request.
   */
  readonly approved?: string | undefined;
}

/** Everything a source may need to run one call: the caller's context and its deadline. */
export interface CallContext extends CallerContext {
  /** Epoch milliseconds after which the call is abandoned. */
  readonly deadline: number;
}

/** Notifications a source raises outside any one call. */
export type SourceNotification = ResourceUpdatedNotification | LoggingMessageNotification;

/** A 2026-07-28 list result's caching hint: fresh for `ttlMs`, shareable across callers if public. */
export interface CacheHint {
  readonly ttlMs: number;
  readonly cacheScope: "public" | "private";
}

export type ChangeKind = "tools" | "resources" | "prompts";

/** What a source raises on its own, forwarded by the broker with the source's name. */
export type SourceEvent =
  | { readonly type: "changed"; readonly what: ChangeKind }
  | { readonly type: "notification"; readonly notification: SourceNotification };

export interface Router {
  /** name */
  readonly name: string;
  /**
   * Opens the backend; resolves once it answers (its tools are known). The
   * broker's supervisor calls it again after a failed start or after the
   * source reported itself down, so it must open everything anew each time
   * and leave nothing open when it fails. A failure is thrown as a BrokerError
   * whose message is safe to show callers: what went wrong in words, never a
   * backend's stderr or a credential (those go to the log).
   */
  start(): Promise<void>;
  /** instructions */
  instructions(): string | undefined;
  /** capabilities */
  capabilities(): ServerCapabilities;
  /** list-tools */
  listTools(): Promise<Tool[]>;
  /** call-tool; a failure to reach the backend is thrown as a BrokerError */
  callTool(name: string, args: Record<string, unknown>, ctx: CallContext): Promise<CallToolResult>;
  /** list-resources; params and result whole, so paging passes through */
  listResources?(
    params: ListResourcesRequest["params"],
    ctx: CallContext,
  ): Promise<ListResourcesResult>;
  listResourceTemplates?(
    params: ListResourceTemplatesRequest["params"],
    ctx: CallContext,
  ): Promise<ListResourceTemplatesResult>;
  /** read-resource */
  readResource?(
    params: ReadResourceRequest["params"],
    ctx: CallContext,
  ): Promise<ReadResourceResult>;
  /** Subscriptions are counted per session; the backend is asked once per URI. */
  subscribe?(uri: string, ctx: CallContext): Promise<void>;
  unsubscribe?(uri: string, ctx: CallContext): Promise<void>;
  /** list-prompts */
  listPrompts?(params: ListPromptsRequest["params"], ctx: CallContext): Promise<ListPromptsResult>;
  /** get-prompt */
  getPrompt?(params: GetPromptRequest["params"], ctx: CallContext): Promise<GetPromptResult>;
  /** complete */
  complete?(params: CompleteRequest["params"], ctx: CallContext): Promise<CompleteResult>;
  setLoggingLevel?(level: LoggingLevel, ctx: CallContext): Promise<void>;
  /** The backend's own `serverInfo`, as it gave it in `initialize`. */
  serverInfo?(): Implementation | undefined;
  /** The MCP revision an MCP backend speaks, once connected. */
  protocolVersion?(): string | undefined;
  /** How long its tool list may be cached, where its backend said (2026-07-28). */
  toolsCacheHint?(): CacheHint | undefined;
  /** The `list_changed` signal; returns the unsubscribe function. */
  onChange?(listener: (what: ChangeKind) => void): () => void;
  /** Resource updates and logging not tied to one call; returns the unsubscribe function. */
  onNotification?(listener: (n: SourceNotification) => void): () => void;
  /**
   * The backend went away on its own (its process exited, its connection
   * closed): the supervisor restarts the source. `reason` is shown to callers,
   * so it says what happened without the backend's own output.
   */
  onDown?(listener: (reason: string) => void): () => void;
  /** Parts the source replaced by itself while staying up (a WebAssembly instance after a trap). */
  replacements?(): number;
  /** Ends what a client session holds at the source (its subscriptions). */
  endSession?(session: string): Promise<void>;
  /** Stops the source for good: no start() follows. */
  close(): Promise<void>;
}

/**
 * A source's state as the broker's supervisor keeps it, the same for every
 * kind: `starting` (first start under way), `up`, `restarting` (went down; a
 * restart is due), `failed` (the last attempt to start failed; retried with
 * backoff until it works).
 */
export type SourceState = "starting" | "up" | "restarting" | "failed";

export interface SourceStatus {
  readonly state: SourceState;
  readonly up: boolean;
  /** Starts after the first one, and parts the source replaced by itself. */
  readonly restarts: number;
  /** Failed attempts to start since the source was last up. */
  readonly attempts: number;
  /** Why it is not up, in words safe to show; the details are in the broker's log. */
  readonly lastError?: string;
  /** When and why it last went down while it was up (a crash, a sandbox's limit), kept after it came back. */
  readonly lastDown?: string;
  /** The MCP revision the backend speaks, for MCP backends that are up. */
  readonly protocolVersion?: string;
}
