/**
 * The contract every source implements: the `wasix:mcp@25.3.26` router interface
 * (seed 004) in TypeScript, with the MCP SDK's types as payloads. WIT names are
 * given beside each member. A source adapts one kind of backend to this and
 * knows nothing of auth, limits or wire formats.
 */
import type {
  CallToolResult,
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
} from "@modelcontextprotocol/sdk/types.js";

/** Who is calling, as established by a frontend's authentication. */
export interface Principal {
  /** Token id, or `anonymous` where no auth is configured. */
  readonly id: string;
  /** Path-glob scopes such as `call:/cms/**`. */
  readonly scopes: readonly string[];
}

/** Everything a source may need to run one call, and nothing about wire formats. */
export interface CallContext {
  /** Aborted on timeout, on client cancellation and on disconnect. */
  readonly signal: AbortSignal;
  /** Epoch milliseconds after which the call is abandoned. */
  readonly deadline: number;
  readonly principal: Principal;
  /** Progress reported by the backend, for the caller. */
  progress?(p: Progress): void;
  /** Server-to-client requests raised during the call (sampling, elicitation, roots). */
  request?(r: ServerRequest, signal?: AbortSignal): Promise<ClientResult>;
  /** Notifications raised during the call that belong to its caller (logging). */
  notify?(n: ServerNotification): void;
  /** The client session the call came from: a shared backend's requests go back to it only. */
  readonly session?: string;
  /** From `Idempotency-Key` or `_meta.idempotencyKey`: a repeat returns the first result. */
  readonly idempotencyKey?: string | undefined;
}

/** Notifications a source raises outside any one call. */
export type SourceNotification = ResourceUpdatedNotification | LoggingMessageNotification;

export type ChangeKind = "tools" | "resources" | "prompts";

export interface Router {
  /** name */
  readonly name: string;
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
  /** The `list_changed` signal; returns the unsubscribe function. */
  onChange?(listener: (what: ChangeKind) => void): () => void;
  /** Resource updates and logging not tied to one call; returns the unsubscribe function. */
  onNotification?(listener: (n: SourceNotification) => void): () => void;
  /** Ends what a client session holds at the source (its subscriptions). */
  endSession?(session: string): Promise<void>;
  close(): Promise<void>;
}

/** A source that can be up or down, for `/healthz` and fast failure while down. */
export interface SupervisedRouter extends Router {
  /** Starts the backend; resolves once it answered `tools/list`, rejects if it could not. */
  start(): Promise<void>;
  status(): SourceStatus;
}

export interface SourceStatus {
  readonly up: boolean;
  readonly restarts: number;
  readonly lastError?: string;
}
