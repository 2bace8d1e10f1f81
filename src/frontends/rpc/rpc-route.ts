import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Broker } from "../../broker/broker.js";
import { asBrokerError, BrokerError } from "../../contract/errors.js";
import type { AuthEnv } from "../http/token-auth/index.js";
import {
  failure,
  RpcRequestSchema,
  salvageId,
  success,
  type RpcError,
  type RpcResponse,
} from "./envelope.js";
import {
  httpStatusOf,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  REGISTRY_CODES,
  registryErrorType,
} from "./error-codes.js";
import { CallFailure, ExecutionFailed, METHODS, type MethodContext } from "./methods.js";

/** Requests in one batch at most: a larger one is refused whole, before any runs. */
export const MAX_BATCH = 1000;
/** Members of a batch run at once at most. */
const BATCH_CONCURRENCY = 16;

interface Answered {
  /** Absent for a notification. */
  readonly response?: RpcResponse;
  readonly status: ContentfulStatusCode;
}

/**
 * `POST /rpc`: JSON-RPC 2.0 (single requests and batches) speaking the tool
 * registry protocol, with its error codes, which belong to this
 * endpoint only. A single request that fails auth, scope, idempotency or size
 * is also answered with that HTTP status (docs/ERRORS.md); in a batch each
 * member carries its own error.
 */
export function rpcRoutes(broker: Broker): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  app.post("/rpc", async (c) => {
    const ctx: MethodContext = {
      broker,
      principal: c.get("principal"),
      signal: c.req.raw.signal,
      idempotencyKey: c.req.header("idempotency-key"),
    };
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text()) as unknown;
    } catch (err) {
      return c.json(
        failure(null, {
          code: PARSE_ERROR,
          message: "Parse error",
          data: { details: `the body is not JSON: ${(err as Error).message}` },
        }),
      );
    }
    if (!Array.isArray(body)) {
      const { response, status } = await answer(body, ctx, broker);
      return response ? c.json(response, status) : c.body(null, 204);
    }
    if (body.length === 0 || body.length > MAX_BATCH) {
      const details =
        body.length === 0
          ? "the batch is empty; send at least one request"
          : `a batch holds at most ${MAX_BATCH} requests; this one has ${body.length}: split it`;
      return c.json(
        failure(null, { code: INVALID_REQUEST, message: "Invalid Request", data: { details } }),
      );
    }
    // One Idempotency-Key cannot stand for several calls.
    const memberCtx = { ...ctx, idempotencyKey: undefined };
    const responses = (await inTurns(body, (member) => answer(member, memberCtx, broker)))
      .map((a) => a.response)
      .filter((r): r is RpcResponse => r !== undefined);
    return responses.length === 0 ? c.body(null, 204) : c.json(responses);
  });
  return app;
}

async function answer(member: unknown, ctx: MethodContext, broker: Broker): Promise<Answered> {
  const parsed = RpcRequestSchema.safeParse(member);
  if (!parsed.success) {
    const details = parsed.error.issues
      .map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message))
      .join("; ");
    return {
      response: failure(salvageId(member), {
        code: INVALID_REQUEST,
        message: "Invalid Request",
        data: { details: `not a JSON-RPC 2.0 request: ${details}` },
      }),
      status: 200,
    };
  }
  const request = parsed.data;
  const id = request.id ?? null;
  const notification = request.id === undefined;
  const method = Object.hasOwn(METHODS, request.method) ? METHODS[request.method] : undefined;
  if (!method) {
    const error = {
      code: METHOD_NOT_FOUND,
      message: "Method not found",
      data: {
        details: `no method "${request.method}"; the methods are ${Object.keys(METHODS).join(", ")}`,
      },
    };
    return notification ? { status: 200 } : { response: failure(id, error), status: 200 };
  }
  try {
    const result = await method(request.params, ctx);
    return notification ? { status: 200 } : { response: success(id, result), status: 200 };
  } catch (err) {
    const { error, status } = rpcError(err, broker);
    return notification ? { status: 200 } : { response: failure(id, error), status };
  }
}

/** Any failure as the registry's error object, with the protocol's `data` shape. */
function rpcError(err: unknown, broker: Broker): { error: RpcError; status: ContentfulStatusCode } {
  if (err instanceof ExecutionFailed) {
    return {
      error: {
        ...REGISTRY_CODES.execution_failed,
        data: { call_id: err.callId, error_type: err.errorType, details: err.details },
      },
      status: 200,
    };
  }
  const callId = err instanceof CallFailure ? err.callId : undefined;
  const cause = err instanceof CallFailure ? err.error : err;
  if (!(cause instanceof BrokerError)) broker.log.error({ err: cause }, "registry request failed");
  const error = asBrokerError(cause);
  const type = registryErrorType(error);
  const retryAfter = error.details?.retry_after_s;
  return {
    error: {
      ...REGISTRY_CODES[type],
      data: {
        ...(callId === undefined ? {} : { call_id: callId }),
        error_type: type === "server_error" ? error.kind : type,
        details: error.message,
        ...(retryAfter === undefined ? {} : { retry_after_s: retryAfter }),
      },
    },
    status: httpStatusOf(error),
  };
}

/** Runs `work` on every item, a few at a time, keeping the order of the answers. */
async function inTurns<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, items.length) }, worker));
  return results;
}
