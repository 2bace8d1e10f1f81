import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  type ClientCapabilities,
  type ClientResult,
  type Server,
  type ServerContext,
  type ServerResult,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import type { BridgeState, InputBridge } from "./input-bridge.js";
import type { RequestExtra } from "./request-context.js";

/** What serves one method: each request's raw message, and the way back to its client. */
export interface MethodAnswer {
  answer(request: unknown, extra: RequestExtra): Promise<ServerResult>;
}

/**
 * Where the broker's MCP handlers are installed, so the tree, the policy and
 * the relaying are written once and served in every revision.
 */
export interface HandlerHost {
  handle(method: string, serving: MethodAnswer): void;
}

/**
 * What a server instance serves: `legacy`, a session opened by `initialize`
 * (2025-11-25 and before); `legacy-request`, one 2025-era request of a
 * stateless endpoint, answered as plain JSON, which has no way back to the
 * client; `modern`, a 2026-07-28 connection (stdio); `modern-request`, one
 * 2026-07-28 request (HTTP), whose changes reach the client through the
 * endpoint's `subscriptions/listen` streams instead.
 */
export type Era = "legacy" | "legacy-request" | "modern" | "modern-request";

/** Whether a server speaks revision 2026-07-28. */
export function isModern(era: Era): boolean {
  return era === "modern" || era === "modern-request";
}

/** Whether a server lives for one request only, and so hears of no changes. */
export function servesOneRequest(era: Era): boolean {
  return era === "legacy-request" || era === "modern-request";
}

/**
 * A server of one 2025-era request: what that request set at the sources (a
 * log level, a subscription) ends with it, there being no session to keep
 * it; otherwise every such request would leave state behind. 2026-07-28 has
 * no method that sets any, and its requests skip the walk over the sources.
 */
export function endsWithItsRequest(
  server: Server,
  broker: { endSession(session: string): Promise<void> },
  session: string,
  era: Era,
): Server {
  if (era === "legacy-request") server.onclose = () => void broker.endSession(session);
  return server;
}

/** The methods whose 2026-07-28 results may ask the client for input. */
const MULTI_ROUND = new Set(["tools/call", "prompts/get", "resources/read"]);

const ANY_PARAMS = z.looseObject({});

/** Results of client requests are relayed as the client gave them. */
export const RelayedClientResult = z.looseObject({});

/**
 * An SDK server as a HandlerHost. A backend's request to the client
 * (sampling, elicitation, roots) travels as a server-to-client request in a
 * 2025-era session; in 2026-07-28, which has none, it becomes an
 * input-required round of the request that caused it (InputBridge), and
 * fails the call, saying why, where the revision has no rounds.
 */
export function sdkHost(
  server: Server,
  era: Era,
  /** The principal id the session belongs to: a 2026-07-28 request state is sealed to it. */
  owner: string,
  bridge: InputBridge,
): HandlerHost {
  return {
    handle(method, serving) {
      const handler = async (
        params: Record<string, unknown>,
        ctx: ServerContext,
      ): Promise<ServerResult> => {
        const request = { method, params };
        const sendNotification: RequestExtra["sendNotification"] = (n) => ctx.mcpReq.notify(n);
        // The SDK declares the envelope without its keys.
        const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
        const version = envelope?.[PROTOCOL_VERSION_META_KEY];
        const identity = {
          requestId: ctx.mcpReq.id,
          sessionId: ctx.sessionId,
          protocolVersion:
            typeof version === "string" ? version : server.getNegotiatedProtocolVersion(),
        };
        if (era === "legacy") {
          return serving.answer(request, {
            identity,
            signal: ctx.mcpReq.signal,
            clientCapabilities: server.getClientCapabilities() as ClientCapabilities | undefined,
            sendNotification,
            sendRequest: (r, signal) =>
              ctx.mcpReq.send(r, RelayedClientResult, { signal }) as Promise<ClientResult>,
          });
        }
        if (era === "legacy-request") {
          return serving.answer(request, {
            identity,
            signal: ctx.mcpReq.signal,
            sendNotification,
            sendRequest: (r) => Promise.reject(noWayBackStateless(method, r.method)),
          });
        }
        const clientCapabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
          ClientCapabilities | undefined;
        if (!MULTI_ROUND.has(method)) {
          return serving.answer(request, {
            identity,
            signal: ctx.mcpReq.signal,
            clientCapabilities,
            tasks: true,
            sendNotification,
            sendRequest: (r) => Promise.reject(noWayBack(method, r.method)),
          });
        }
        return bridge.serve(
          {
            state: ctx.mcpReq.requestState<BridgeState>(),
            inputResponses: ctx.mcpReq.inputResponses,
            owner,
            signal: ctx.mcpReq.signal,
            notify: sendNotification,
          },
          (extra) =>
            serving.answer(request, { ...extra, identity, clientCapabilities, tasks: true }),
        ) as Promise<ServerResult>;
      };
      // With a schema of its own, the SDK leaves checking the request to the
      // handler (handle-request.ts), whose errors name each field.
      server.setRequestHandler(method, { params: ANY_PARAMS }, handler as never);
    },
  };
}

function noWayBack(method: string, asked: string): ProtocolError {
  return new ProtocolError(
    -32603,
    `the backend asked the client for ${asked} while serving ${method}, which in revision 2026-07-28 cannot ask the client anything; only tools/call, prompts/get and resources/read can`,
  );
}

function noWayBackStateless(method: string, asked: string): ProtocolError {
  return new ProtocolError(
    -32603,
    `the backend asked the client for ${asked} while serving ${method}, which this endpoint cannot carry: it is stateless (http.stateless), and a 2025-era request answered as plain JSON has no way back to the client; a client of revision 2026-07-28 can be asked, or a broker without http.stateless`,
  );
}
