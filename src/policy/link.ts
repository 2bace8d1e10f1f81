/**
 * What passes through the policy chain: one request of any kind a frontend can
 * make, on its way to a source, and what a link is. Every request is governed
 * at a tree path (a tool call at its leaf; the rest at its source's node),
 * with the limits and timeout in force there.
 */
import type {
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  EmptyResult,
  GetPromptRequest,
  GetPromptResult,
  ListPromptsRequest,
  ListPromptsResult,
  ListResourcesRequest,
  ListResourcesResult,
  ListResourceTemplatesRequest,
  ListResourceTemplatesResult,
  ReadResourceRequest,
  ReadResourceResult,
  SetLevelRequest,
  SubscribeRequest,
  UnsubscribeRequest,
} from "@modelcontextprotocol/server";
import type { CallContext } from "../contract/router.js";
import type { EffectiveLimits, ToolEntry } from "../tree/tree.js";

/** The params and the result of each request a source answers besides tool calls. */
export interface SourceRequests {
  "resources/list": [ListResourcesRequest["params"], ListResourcesResult];
  "resources/templates/list": [ListResourceTemplatesRequest["params"], ListResourceTemplatesResult];
  "resources/read": [ReadResourceRequest["params"], ReadResourceResult];
  "resources/subscribe": [SubscribeRequest["params"], EmptyResult];
  "resources/unsubscribe": [UnsubscribeRequest["params"], EmptyResult];
  "prompts/list": [ListPromptsRequest["params"], ListPromptsResult];
  "prompts/get": [GetPromptRequest["params"], GetPromptResult];
  "completion/complete": [CompleteRequest["params"], CompleteResult];
  "logging/setLevel": [SetLevelRequest["params"], EmptyResult];
}

export type SourceRequestKind = keyof SourceRequests;
export type RequestKind = "tools/call" | SourceRequestKind;

/** The result of each kind of request. */
export type Outcome<K extends RequestKind> = K extends SourceRequestKind
  ? SourceRequests[K][1]
  : CallToolResult;
export type Result = Outcome<RequestKind>;

interface Governed {
  /** Where the request is governed: scopes, rate limits and limits are matched here. */
  readonly path: string;
  /** The source it goes to (its mount path). */
  readonly source: string;
  readonly ctx: CallContext;
  readonly limits: EffectiveLimits;
  readonly timeoutMs: number;
}

export interface ToolCall extends Governed {
  readonly kind: "tools/call";
  readonly leaf: ToolEntry;
  readonly args: Record<string, unknown>;
}

export type SourceRequest = {
  [K in SourceRequestKind]: Governed & { readonly kind: K; readonly params: SourceRequests[K][0] };
}[SourceRequestKind];

export type Request = ToolCall | SourceRequest;

/** What the caller sent: a tool's arguments, or a request's params. */
export function argumentsOf(request: Request): unknown {
  return request.kind === "tools/call" ? request.args : request.params;
}

export type Next = (request: Request) => Promise<Result>;

/**
 * One policy link: it may refuse the request, change its context, or look at
 * the result on the way back. A link that governs only some kinds passes the
 * others to `next` untouched, and says so in its doc comment.
 */
export type Link = (request: Request, next: Next) => Promise<Result>;
