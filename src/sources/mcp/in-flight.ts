import {
  ProtocolError,
  ProtocolErrorCode,
  type ClientResult,
  type LoggingMessageNotification,
  type ServerRequest,
} from "@modelcontextprotocol/client";
import type { CallContext } from "../../contract/router.js";
import type { SoleClient } from "../../contract/sole-client.js";
import { capabilityLacking } from "./capability-lacking.js";

/**
 * The calls a shared backend is working on, by client session. A backend's own
 * requests (sampling, elicitation) and request-bound logs carry nothing on the
 * wire that says which call raised them; they can only go back to a caller when
 * every call in flight comes from one session. Otherwise they go nowhere: a
 * shared backend must never deliver one client's traffic to another.
 */
export class InFlight {
  private readonly calls = new Set<CallContext>();

  /** `sole`: the one client of a broker that serves no other, asked when no call is in flight. */
  constructor(private readonly sole?: SoleClient) {}

  /** Tracks `ctx` until `work` settles. */
  async track<T>(ctx: CallContext, work: () => Promise<T>): Promise<T> {
    this.calls.add(ctx);
    try {
      return await work();
    } finally {
      this.calls.delete(ctx);
    }
  }

  /** The latest call, when every call in flight is from one session; else undefined. */
  soleCaller(): CallContext | undefined {
    let latest: CallContext | undefined;
    for (const ctx of this.calls) {
      if (latest && latest.session !== ctx.session) return undefined;
      if (latest && latest.session === undefined) return undefined;
      latest = ctx;
    }
    return latest;
  }

  /**
   * A backend's request (sampling, elicitation, roots) to the client whose
   * call raised it, where that client offers what it needs; outside any
   * call, to the sole client where there is one.
   */
  routeRequest(request: ServerRequest, signal: AbortSignal): Promise<ClientResult> {
    if (this.sole && this.calls.size === 0) return this.sole.request(request, signal);
    const caller = this.soleCaller();
    if (!caller) {
      throw refused(
        ProtocolErrorCode.InvalidRequest,
        request,
        this.calls.size === 0
          ? `${request.method} can only be relayed during a call from a client`
          : `${request.method} cannot be routed: calls from several clients are in flight on this shared backend`,
      );
    }
    if (!caller.request) {
      throw refused(
        ProtocolErrorCode.InvalidRequest,
        request,
        `${request.method} cannot reach the caller: its call came by the REST or JSON-RPC API, which cannot ask it anything; call the tool over MCP, from a client that offers ${capabilityLacking(request, {}) ?? "it"}`,
      );
    }
    const lacking =
      caller.clientCapabilities && capabilityLacking(request, caller.clientCapabilities);
    // What a client without the capability would answer: the call goes on, the backend decides.
    if (lacking !== undefined) {
      throw refused(
        ProtocolErrorCode.MethodNotFound,
        request,
        `${request.method} refused: the client of the call in flight does not offer ${lacking}`,
      );
    }
    return caller.request(request, signal);
  }

  /**
   * A backend's log: to the caller when it is clear whose it is, to `outside`
   * when no call is in flight; false when it cannot be attributed (dropped).
   */
  routeLog(
    n: LoggingMessageNotification,
    outside: (n: LoggingMessageNotification) => void,
  ): boolean {
    const caller = this.soleCaller();
    if (caller?.notify) caller.notify(n);
    else if (this.calls.size === 0) outside(n);
    else return false;
    return true;
  }
}

/** A backend's request refused, and for roots, how the backend can have some anyway. */
function refused(code: ProtocolErrorCode, request: ServerRequest, why: string): ProtocolError {
  const roots =
    request.method === "roots/list"
      ? "; the source's `roots` setting gives this backend roots of its own"
      : "";
  return new ProtocolError(code, why + roots);
}
