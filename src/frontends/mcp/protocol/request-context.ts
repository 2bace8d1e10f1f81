import type {
  ClientCapabilities,
  ClientResult,
  ServerNotification,
  ServerRequest,
} from "@modelcontextprotocol/server";
import type { CallerContext, Principal } from "../../../contract/router.js";

/** What a handler has of its request besides the message: cancellation and the way back. */
export interface RequestExtra {
  readonly signal: AbortSignal;
  /** What the client said it can be asked, where it said so. */
  readonly clientCapabilities?: ClientCapabilities | undefined;
  /** Whether the request's revision (2026-07-28) has MCP's Tasks extension for its client to declare. */
  readonly tasks?: boolean;
  sendNotification(n: ServerNotification): Promise<void>;
  /** A request to the client, bound to this one (sampling, elicitation, roots). */
  sendRequest(r: ServerRequest, signal?: AbortSignal, key?: string): Promise<ClientResult>;
  /** What its trace span says of it: JSON-RPC id, session and revision, where known. */
  readonly identity?: RequestIdentity;
}

export interface RequestIdentity {
  readonly requestId: string | number;
  readonly sessionId?: string | undefined;
  readonly protocolVersion?: string | undefined;
}

/** A request's `_meta`: its progress token, and the broker's `idempotencyKey`. */
export type RequestMeta = { progressToken?: string | number; idempotencyKey?: unknown } | undefined;

/**
 * The CallerContext of one MCP request: its cancellation, its progress token, and
 * a way back to this client for the backend's own requests and logs, all
 * bound to the request, so they travel on its stream and reach only its client.
 */
export function requestContext(
  extra: RequestExtra,
  principal: Principal,
  session: string,
  meta?: RequestMeta,
): CallerContext {
  const progressToken = meta?.progressToken;
  const idempotencyKey = meta?.idempotencyKey;
  return {
    signal: extra.signal,
    clientCapabilities: extra.clientCapabilities,
    principal,
    session,
    idempotencyKey: typeof idempotencyKey === "string" ? idempotencyKey : undefined,
    progress:
      progressToken === undefined
        ? undefined
        : (p) => {
            extra
              .sendNotification({
                method: "notifications/progress",
                params: { ...p, progressToken },
              })
              .catch(() => undefined);
          },
    request: (r, signal, key) => extra.sendRequest(r, signal, key),
    notify: (n: ServerNotification) => {
      extra.sendNotification(n).catch(() => undefined);
    },
  };
}
