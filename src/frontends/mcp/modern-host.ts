import type { Server, ServerContext } from "@modelcontextprotocol/server";
import type { ServerResult } from "@modelcontextprotocol/sdk/types.js";
import type { Principal } from "../../contract/router.js";
import type { HandlerHost } from "./handler-host.js";
import type { BridgeState, InputBridge } from "./input-bridge.js";
import { ProtocolError } from "./protocol-error.js";
import type { RequestExtra } from "./request-context.js";

/** The methods whose 2026-07-28 results may ask the client for input. */
const MULTI_ROUND = new Set(["tools/call", "prompts/get", "resources/read"]);

/**
 * A 2026-07-28 server (SDK 2.x) as a HandlerHost. Where a backend asks the
 * client something mid-call, the revision's multi-round requests carry it
 * (InputBridge); elsewhere a backend's request has no way to the client and
 * fails the call, saying so.
 */
export function modernHost(server: Server, principal: Principal, bridge: InputBridge): HandlerHost {
  return {
    handle(method, answer) {
      server.setRequestHandler(
        method as "tools/call",
        (async (request: unknown, ctx: ServerContext): Promise<ServerResult> => {
          const notify: RequestExtra["sendNotification"] = (n) => ctx.mcpReq.notify(n);
          if (!MULTI_ROUND.has(method)) {
            return answer(request, {
              signal: ctx.mcpReq.signal,
              sendNotification: notify,
              sendRequest: (r) => Promise.reject(noWayBack(method, r.method)),
            });
          }
          return bridge.serve(
            {
              state: ctx.mcpReq.requestState<BridgeState>(),
              inputResponses: ctx.mcpReq.inputResponses,
              owner: principal.id,
              signal: ctx.mcpReq.signal,
              notify,
            },
            (extra) => answer(request, extra),
          ) as Promise<ServerResult>;
        }) as never,
      );
    },
  };
}

function noWayBack(method: string, asked: string): ProtocolError {
  return new ProtocolError(
    -32603,
    `the backend asked the client for ${asked} while serving ${method}, which in revision 2026-07-28 cannot ask the client anything; only tools/call, prompts/get and resources/read can`,
  );
}
