import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { CallContext, Principal } from "../../contract/router.js";

const FAR_FUTURE_MS = 24 * 60 * 60 * 1000;

export type RequestExtra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];

/** A request's `_meta`: its progress token, and the broker's `idempotencyKey`. */
export type RequestMeta = { progressToken?: string | number; idempotencyKey?: unknown } | undefined;

/** Results of client requests are relayed as the client gave them. */
const RelayedClientResult = z.looseObject({});

/**
 * The CallContext of one MCP request: its cancellation, its progress token, and
 * a way back to this client for the backend's own requests and logs, all
 * bound to the request, so they travel on its stream and reach only its client.
 */
export function requestContext(
  extra: RequestExtra,
  principal: Principal,
  session: string,
  meta?: RequestMeta,
): CallContext {
  const progressToken = meta?.progressToken;
  const idempotencyKey = meta?.idempotencyKey;
  return {
    signal: extra.signal,
    deadline: Date.now() + FAR_FUTURE_MS,
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
    request: (r: ServerRequest, signal?: AbortSignal) =>
      extra.sendRequest(r, RelayedClientResult as never, { signal }) as never,
    notify: (n: ServerNotification) => {
      extra.sendNotification(n).catch(() => undefined);
    },
  };
}
