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
  GetPromptResult,
  Progress,
  Prompt,
  ReadResourceResult,
  Resource,
  ServerCapabilities,
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
  request?(r: ServerRequest): Promise<ClientResult>;
}

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
  /** list-resources */
  listResources?(): Promise<Resource[]>;
  /** read-resource */
  readResource?(uri: string, ctx: CallContext): Promise<ReadResourceResult>;
  /** list-prompts */
  listPrompts?(): Promise<Prompt[]>;
  /** get-prompt */
  getPrompt?(
    name: string,
    args: Record<string, string>,
    ctx: CallContext,
  ): Promise<GetPromptResult>;
  /** complete */
  complete?(req: CompleteRequest["params"], ctx: CallContext): Promise<CompleteResult>;
  /** The `list_changed` signal; returns the unsubscribe function. */
  onChange?(listener: (what: ChangeKind) => void): () => void;
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
