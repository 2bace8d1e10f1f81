import {
  CLIENT_CAPABILITIES_META_KEY,
  type Client,
  type ClientCapabilities,
  type ClientResult,
  isInputRequiredResult,
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type RequestOptions,
  type ServerRequest,
} from "@modelcontextprotocol/client";
import type { z } from "zod";
import { BrokerError } from "../../contract/errors.js";
import type { CallContext } from "../../contract/router.js";
import type { ConfiguredRoots } from "./configured-roots.js";

/** More rounds than any tool needs: a backend asking forever is refused. */
const MAX_INPUT_ROUNDS = 16;

/** Of a client's capabilities, those a backend may ask through the broker. */
function askable(caps: ClientCapabilities): ClientCapabilities {
  return {
    ...(caps.sampling ? { sampling: caps.sampling } : {}),
    ...(caps.elicitation ? { elicitation: caps.elicitation } : {}),
    ...(caps.roots ? { roots: caps.roots } : {}),
  };
}

/**
 * The params of a request to a 2026-07-28 backend, with what that revision
 * carries in each request's `_meta`: what the caller's client can be asked
 * (the broker can ask nothing its caller cannot answer) and the log level
 * the caller's session asked for.
 */
export function withCallerMeta<P extends { _meta?: Record<string, unknown> }>(
  params: P,
  ctx: CallContext,
  level: LoggingLevel | undefined,
): P {
  if (ctx.clientCapabilities === undefined && level === undefined) return params;
  return {
    ...params,
    _meta: {
      ...params._meta,
      ...(ctx.clientCapabilities !== undefined
        ? { [CLIENT_CAPABILITIES_META_KEY]: askable(ctx.clientCapabilities) }
        : {}),
      ...(level !== undefined ? { [LOG_LEVEL_META_KEY]: level } : {}),
    },
  };
}

/**
 * Sends a request whose 2026-07-28 answer may be input-required: each
 * round's questions go to the caller together (a 2026-07-28 client gets them
 * in one round, under their keys), and its answers, with the backend's
 * request state, to the next round. A question for roots is answered here
 * when the source has its own.
 */
export async function inRounds<T>(
  client: Client,
  request: { method: string; params: Record<string, unknown> },
  schema: z.ZodType,
  options: RequestOptions,
  ctx: CallContext,
  /** Names the request and its source in errors: "source fx asks ... during tools/call ask". */
  where: { source: string; what: string },
  /** The source's own roots, answered here rather than asked of the caller. */
  roots?: ConfiguredRoots,
  /** Told when a round was answered: whatever fails later, the request reached the backend. */
  answered?: () => void,
): Promise<T> {
  const first = request.params;
  let next = first;
  for (let round = 0; ; round++) {
    const result: unknown = await client.request({ method: request.method, params: next }, schema, {
      ...options,
      allowInputRequired: true,
    });
    if (!isInputRequiredResult(result)) return result as T;
    answered?.();
    if (round === MAX_INPUT_ROUNDS) {
      throw new BrokerError(
        "execution_failed",
        `source ${where.source} asked for input ${MAX_INPUT_ROUNDS} times during ${where.what} without finishing`,
        { source: where.source },
      );
    }
    const asked = Object.entries(result.inputRequests ?? {});
    const answers = await Promise.all(
      asked.map(([key, question]) =>
        (question as ServerRequest).method === "roots/list" && roots
          ? roots.list()
          : askCaller(ctx, question as ServerRequest, where, key),
      ),
    );
    next = {
      ...first,
      inputResponses: Object.fromEntries(asked.map(([key], i) => [key, answers[i]])),
    };
    if (result.requestState !== undefined) next.requestState = result.requestState;
  }
}

function askCaller(
  ctx: CallContext,
  question: ServerRequest,
  where: { source: string; what: string },
  key: string,
): Promise<ClientResult> {
  if (!ctx.request) {
    throw new BrokerError(
      "execution_failed",
      `source ${where.source} asks the client for ${question.method} during ${where.what}, and this caller cannot be asked (call it over MCP)`,
      { source: where.source },
    );
  }
  return ctx.request(question, ctx.signal, key);
}
