import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ClientResult, ServerResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { RequestExtra } from "./request-context.js";

/** Serves one request: its raw message, and the way back to its client. */
export type Answer = (request: unknown, extra: RequestExtra) => Promise<ServerResult>;

/**
 * Where the broker's MCP handlers are installed: a server of either SDK
 * generation, so the tree, the policy and the relaying are written once and
 * served to clients of every revision.
 */
export interface HandlerHost {
  handle(method: string, answer: Answer): void;
}

/** A 2025-era server (SDK 1.x), for sessions opened by `initialize`. */
export function legacyHost(server: Server): HandlerHost {
  return {
    handle(method, answer) {
      // The SDK's Server wraps tools/call handlers in its own validation, whose
      // failure reads as a dump; Protocol's method registers the handler as it is.
      Protocol.prototype.setRequestHandler.call(server, methodOnly(method), ((
        request: unknown,
        extra: LegacyExtra,
      ) =>
        answer(request, {
          signal: extra.signal,
          sendNotification: (n) => extra.sendNotification(n),
          sendRequest: (r, signal) =>
            extra.sendRequest(r, RelayedClientResult, { signal }) as Promise<ClientResult>,
        })) as never);
    },
  };
}

type LegacyExtra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];

/** Results of client requests are relayed as the client gave them. */
const RelayedClientResult = z.looseObject({});

/** One schema per method for every session: a zod schema costs kilobytes, sessions are many. */
const METHOD_ONLY = new Map<string, z.ZodType>();
function methodOnly(method: string): z.ZodType {
  let schema = METHOD_ONLY.get(method);
  if (!schema) {
    schema = z.looseObject({ method: z.literal(method) });
    METHOD_ONLY.set(method, schema);
  }
  return schema;
}
