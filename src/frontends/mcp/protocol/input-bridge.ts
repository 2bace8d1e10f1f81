import { randomBytes, randomUUID } from "node:crypto";
import {
  createRequestStateCodec,
  inputRequired,
  ProtocolError,
  type ClientResult,
  type InputRequest,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerRequest,
  type ServerResult,
} from "@modelcontextprotocol/server";
import type { BridgeRelay } from "../shared/bridge-relay.js";
import type { RequestExtra } from "./request-context.js";

/** How long a call waits for its client's next round before it is abandoned. */
export const ROUND_TIMEOUT_MS = 10 * 60 * 1000;

/** What the broker seals into the `requestState` it hands a 2026-07-28 client. */
export interface BridgeState {
  /** The instance the call runs on: a round that reaches another is relayed there. */
  readonly instance: string;
  /** The call in flight on that instance. */
  readonly call: string;
  /** Which round this state answers: a state is good for one round only. */
  readonly round: number;
  /** The caller the call belongs to. */
  readonly owner: string;
}

/** One round of a 2026-07-28 request: what it carried, and where its own messages go. */
export interface Round {
  readonly state: BridgeState | undefined;
  readonly inputResponses: Record<string, unknown> | undefined;
  readonly owner: string;
  readonly signal: AbortSignal;
  notify: RequestExtra["sendNotification"];
}

interface Ask {
  readonly request: ServerRequest;
  resolve(result: ClientResult): void;
  reject(err: Error): void;
  /** Sent to the client in an input-required result, awaiting its answer. */
  sent: boolean;
}

/**
 * A call made for a 2026-07-28 client, kept running between its rounds: the
 * backend's requests to the client (sampling, elicitation, roots) wait here
 * for the client's next round instead of travelling as server-to-client
 * requests, which that revision does not have.
 */
class PendingCall {
  readonly id = randomUUID();
  round = 0;
  /** A round of the client's is waiting on the call: another may not continue it at once. */
  inRound = false;
  readonly asks = new Map<string, Ask>();
  private outcome: { result: ServerResult } | { error: unknown } | undefined;
  private wake: (() => void) | undefined;
  private readonly controller = new AbortController();
  private expiry: NodeJS.Timeout | undefined;
  private current: Round;
  private nextKey = 0;

  constructor(
    readonly owner: string,
    first: Round,
    run: (extra: RequestExtra) => Promise<ServerResult>,
    private readonly ended: (call: PendingCall) => void,
  ) {
    this.current = first;
    run({
      signal: this.controller.signal,
      sendNotification: (n) => this.current.notify(n),
      sendRequest: (request, _signal, key) => this.ask(request, key),
    }).then(
      (result) => this.settle({ result }),
      (error: unknown) => this.settle({ error }),
    );
  }

  /** Takes a round's answers to what was asked, and its stream for notifications. */
  resume(round: Round): void {
    clearTimeout(this.expiry);
    this.current = round;
    for (const [key, ask] of this.asks) {
      const answer = round.inputResponses?.[key];
      if (answer === undefined || answer === null || typeof answer !== "object") {
        // Asked and not answered: asked again in this round's result.
        ask.sent = false;
        continue;
      }
      this.asks.delete(key);
      ask.resolve(answer as ClientResult);
    }
  }

  /**
   * Waits until the call ends or has something to ask that the client has
   * not been asked; the round's own cancellation abandons the wait only.
   */
  async next(
    signal: AbortSignal,
  ): Promise<{ result: ServerResult } | { error: unknown } | { ask: Map<string, Ask> }> {
    while (this.outcome === undefined && ![...this.asks.values()].some((a) => !a.sent)) {
      if (signal.aborted) throw signal.reason;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    if (this.outcome !== undefined) return this.outcome;
    for (const ask of this.asks.values()) ask.sent = true;
    this.round += 1;
    this.expiry = setTimeout(() => this.abandon(), ROUND_TIMEOUT_MS);
    this.expiry.unref();
    return { ask: this.asks };
  }

  abandon(): void {
    clearTimeout(this.expiry);
    this.controller.abort(new Error("the client gave up on the call, or did not answer in time"));
    for (const ask of this.asks.values()) ask.reject(new Error("the call was abandoned"));
    this.asks.clear();
    this.ended(this);
  }

  /** Asks under the backend's own key where it gave one and it is free. */
  private ask(request: ServerRequest, key?: string): Promise<ClientResult> {
    let name = key;
    while (name === undefined || this.asks.has(name)) name = `r${this.nextKey++}`;
    return new Promise((resolve, reject) => {
      this.asks.set(name, { request, resolve, reject, sent: false });
      this.wake?.();
    });
  }

  private settle(outcome: { result: ServerResult } | { error: unknown }): void {
    this.outcome = outcome;
    clearTimeout(this.expiry);
    this.wake?.();
  }
}

/**
 * Bridges a 2026-07-28 client to backends that ask it for things mid-call
 * (2025-era sampling, elicitation and roots requests): the call keeps
 * running on this instance, each question goes to the client as an
 * input-required result, and the client's answers, carried in its next
 * round, go back to the backend's pending request. The `requestState` that
 * links the rounds is HMAC-sealed, names its caller and is good for one
 * round: tampered, foreign or replayed state is refused. With a relay (several
 * instances sharing a store, and a key), a round that reaches another
 * instance than its call's is carried to the call's.
 */
export class InputBridge {
  readonly codec: RequestStateCodec<BridgeState>;
  private readonly calls = new Map<string, PendingCall>();
  private readonly instance: string;

  constructor(
    key: Uint8Array = randomBytes(32),
    private readonly relay?: BridgeRelay,
  ) {
    this.codec = createRequestStateCodec<BridgeState>({ key, ttlSeconds: ROUND_TIMEOUT_MS / 1000 });
    this.instance = relay?.instance ?? randomUUID();
    relay?.serveWith((round, signal, notify) =>
      this.serve(
        {
          state: round.state as unknown as BridgeState,
          inputResponses: round.inputResponses,
          owner: round.owner,
          signal,
          notify,
        },
        () => Promise.reject(new Error("a relayed round never starts a call")),
      ),
    );
  }

  /** Serves one round: the first starts the call, the next ones continue it. */
  async serve(
    round: Round,
    run: (extra: RequestExtra) => Promise<ServerResult>,
  ): Promise<ServerResult | InputRequiredResult> {
    if (round.state !== undefined && round.state.instance !== this.instance && this.relay) {
      const { state, inputResponses, owner } = round;
      return this.relay.forward(
        state.instance,
        { state: { ...state }, inputResponses, owner },
        round.signal,
        round.notify,
      );
    }
    let call: PendingCall;
    if (round.state === undefined) {
      call = new PendingCall(round.owner, round, run, (c) => this.calls.delete(c.id));
      this.calls.set(call.id, call);
    } else {
      call = this.continued(round.state, round.owner);
      call.resume(round);
    }
    let next: Awaited<ReturnType<PendingCall["next"]>>;
    call.inRound = true;
    try {
      next = await call.next(round.signal);
    } catch (err) {
      // The client gave up on its request (it disconnected or cancelled it): so does the call.
      call.abandon();
      throw err;
    } finally {
      call.inRound = false;
    }
    if ("ask" in next) {
      const inputRequests: Record<string, InputRequest> = {};
      for (const [key, ask] of next.ask) inputRequests[key] = ask.request as InputRequest;
      const requestState = await this.codec.mint({
        instance: this.instance,
        call: call.id,
        round: call.round,
        owner: call.owner,
      });
      return inputRequired({ inputRequests, requestState });
    }
    this.calls.delete(call.id);
    if ("error" in next) throw next.error;
    return next.result;
  }

  /** Ends every call waiting for its client. */
  close(): void {
    this.relay?.close();
    for (const call of [...this.calls.values()]) call.abandon();
  }

  private continued(state: BridgeState, owner: string): PendingCall {
    const call = state.instance === this.instance ? this.calls.get(state.call) : undefined;
    if (
      !call ||
      call.inRound ||
      call.round !== state.round ||
      call.owner !== owner ||
      owner !== state.owner
    ) {
      throw new ProtocolError(
        -32602,
        "this requestState does not continue a call in progress (it was used already or is being used, belongs to another caller, or its call ended); send the request again without requestState",
        { reason: "invalid_request_state" },
      );
    }
    return call;
  }
}
