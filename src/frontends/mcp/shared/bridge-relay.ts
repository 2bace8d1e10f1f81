import { randomUUID } from "node:crypto";
import { ProtocolError, type ServerNotification } from "@modelcontextprotocol/server";
import { BrokerError } from "../../../contract/errors.js";
import type { Logger } from "../../../contract/log.js";
import type { MessageBus } from "../../../state/store.js";
import {
  readRelayMessage,
  type Failure,
  type Outcome,
  type RelayedRound,
  type RelayMessage,
} from "./relay-message.js";

const CHANNEL = "mcp-broker:input-bridge";

/** Serves a round that came from another instance. */
export type RoundServer = (
  round: RelayedRound,
  signal: AbortSignal,
  notify: (notification: ServerNotification) => Promise<void>,
) => Promise<Outcome>;

interface Waiting {
  resolve(outcome: Outcome): void;
  reject(err: Error): void;
  notify(notification: ServerNotification): Promise<void>;
}

/**
 * Carries a round of a 2026-07-28 call to the instance where the call runs,
 * over the state store's bus, and its answer back: behind a load balancer
 * the round after an input-required result may reach any instance, while
 * the backend's pending request waits on one. A client that gives up on the
 * round cancels it there too; the call's notifications come back with it.
 */
export class BridgeRelay {
  readonly instance = randomUUID();
  private readonly waiting = new Map<string, Waiting>();
  private readonly serving = new Map<string, AbortController>();
  private server: RoundServer | undefined;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly bus: MessageBus,
    private readonly log: Logger,
  ) {
    this.unsubscribe = bus.subscribe(CHANNEL, (text) => this.hear(text));
  }

  /** What serves the rounds other instances send here. */
  serveWith(server: RoundServer): void {
    this.server = server;
  }

  /** Sends a round to the instance its call runs on and waits for what it answers. */
  forward(
    instance: string,
    round: RelayedRound,
    signal: AbortSignal,
    notify: (notification: ServerNotification) => Promise<void>,
  ): Promise<Outcome> {
    const id = randomUUID();
    return new Promise<Outcome>((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(id);
        this.send({ type: "cancel", to: instance, id }).catch(() => undefined);
        reject(signal.reason as Error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(id, {
        notify,
        resolve: (outcome) => {
          signal.removeEventListener("abort", onAbort);
          resolve(outcome);
        },
        reject: (err) => {
          signal.removeEventListener("abort", onAbort);
          reject(err);
        },
      });
      this.send({ type: "round", to: instance, from: this.instance, id, round }).catch(
        (err: Error) => {
          this.waiting.delete(id);
          reject(err);
        },
      );
    });
  }

  close(): void {
    this.unsubscribe();
    for (const controller of this.serving.values()) controller.abort();
  }

  private send(message: RelayMessage): Promise<void> {
    return this.bus.publish(CHANNEL, JSON.stringify(message));
  }

  private hear(text: string): void {
    const message = readRelayMessage(text);
    if (message?.to !== this.instance) return;
    switch (message.type) {
      case "round":
        return void this.serveRound(message);
      case "cancel":
        return this.serving.get(message.id)?.abort(new Error("the client gave up on the round"));
      case "notify":
        return void this.waiting
          .get(message.id)
          ?.notify(message.notification)
          .catch(() => undefined);
      case "reply": {
        const waiting = this.waiting.get(message.id);
        this.waiting.delete(message.id);
        if (!waiting) return;
        if (message.outcome !== undefined) return waiting.resolve(message.outcome);
        return waiting.reject(revived(message.failure));
      }
    }
  }

  private async serveRound(message: Extract<RelayMessage, { type: "round" }>): Promise<void> {
    const controller = new AbortController();
    this.serving.set(message.id, controller);
    const notify = async (notification: ServerNotification) =>
      this.send({ type: "notify", to: message.from, id: message.id, notification });
    let reply: RelayMessage;
    try {
      if (!this.server) throw new Error("no round server on this instance");
      const outcome = await this.server(message.round, controller.signal, notify);
      reply = { type: "reply", to: message.from, id: message.id, outcome };
    } catch (err) {
      reply = { type: "reply", to: message.from, id: message.id, failure: failureOf(err) };
      if (!(err instanceof ProtocolError) && !(err instanceof BrokerError))
        this.log.warn({ err }, "a relayed round of a 2026-07-28 call failed");
    } finally {
      this.serving.delete(message.id);
    }
    await this.send(reply).catch((err: Error) =>
      this.log.warn({ err: err.message }, "the answer to a relayed round was not sent"),
    );
  }
}

function failureOf(err: unknown): Failure {
  if (err instanceof ProtocolError)
    return { protocol: { code: err.code, message: err.message, data: err.data } };
  if (err instanceof BrokerError) return { broker: err.toJSON() };
  return { broker: { kind: "internal", message: "internal error in the broker; see its log" } };
}

function revived(failure: Failure | undefined): Error {
  if (failure === undefined) return new BrokerError("internal", "a relayed round came back empty");
  if ("protocol" in failure)
    return new ProtocolError(
      failure.protocol.code,
      failure.protocol.message,
      failure.protocol.data,
    );
  return new BrokerError(failure.broker.kind, failure.broker.message, failure.broker.details);
}
