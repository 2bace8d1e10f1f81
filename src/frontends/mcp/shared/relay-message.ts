import { ResultSchema, ServerNotificationSchema } from "@modelcontextprotocol/core";
import type {
  InputRequiredResult,
  ServerNotification,
  ServerResult,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { HTTP_STATUS, type ErrorKind } from "../../../contract/errors.js";

/** A round of a 2026-07-28 call as it travels between instances. */
export interface RelayedRound {
  /** The sealed state, already opened by the instance the round came to. */
  readonly state: Record<string, unknown>;
  readonly inputResponses: Record<string, unknown> | undefined;
  readonly owner: string;
}

export type Outcome = ServerResult | InputRequiredResult;

export type Failure =
  | { readonly protocol: { code: number; message: string; data?: unknown } }
  | { readonly broker: { kind: ErrorKind; message: string; details?: Record<string, unknown> } };

export type RelayMessage =
  | { type: "round"; to: string; from: string; id: string; round: RelayedRound }
  | { type: "cancel"; to: string; id: string }
  | { type: "notify"; to: string; id: string; notification: ServerNotification }
  | { type: "reply"; to: string; id: string; outcome?: Outcome; failure?: Failure };

const JsonObject = z.record(z.string(), z.unknown());

const FailureSchema = z.union([
  z.object({
    protocol: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }),
  }),
  z.object({
    broker: z.object({
      kind: z.custom<ErrorKind>(
        (kind) => typeof kind === "string" && Object.hasOwn(HTTP_STATUS, kind),
      ),
      message: z.string(),
      details: JsonObject.optional(),
    }),
  }),
]);

const RelayMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("round"),
    to: z.string(),
    from: z.string(),
    id: z.string(),
    round: z.object({
      state: JsonObject,
      inputResponses: JsonObject.optional(),
      owner: z.string(),
    }),
  }),
  z.object({ type: z.literal("cancel"), to: z.string(), id: z.string() }),
  z.object({
    type: z.literal("notify"),
    to: z.string(),
    id: z.string(),
    notification: ServerNotificationSchema,
  }),
  z.object({
    type: z.literal("reply"),
    to: z.string(),
    id: z.string(),
    // An input-required result or any server result: the SDK's schemas share only this much.
    outcome: ResultSchema.optional(),
    failure: FailureSchema.optional(),
  }),
]);

/**
 * A message of the relay read from the bus, or undefined when it is not one:
 * anyone who can publish on the store's Redis can put anything on the
 * channel, and a message of another version of the broker may differ.
 */
export function readRelayMessage(text: string): RelayMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  // Checked, then passed on as sent: the schemas drop keys they do not know (a
  // notification's own params), which the other instance's client should still get.
  return RelayMessageSchema.safeParse(parsed).success ? (parsed as RelayMessage) : undefined;
}
