/**
 * The one error type of the broker. Sources, the tree and the policy chain throw
 * it; each frontend maps `kind` to its own wire code in one table, so a failure
 * reads the same whichever way a client came in.
 */
export type ErrorKind =
  | "invalid_params"
  | "not_found"
  | "unauthenticated"
  | "forbidden"
  | "idempotency_conflict"
  | "too_large"
  | "rate_limited"
  | "timeout"
  | "unavailable"
  | "execution_failed"
  /** The call waits for a person's approval, as a task (`details.task`): not run yet. */
  | "pending"
  | "internal";

/** The kinds that are a policy's refusal of a request, not a failure of its work. */
export const REFUSAL_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  "unauthenticated",
  "forbidden",
  "rate_limited",
  "idempotency_conflict",
  "too_large",
]);

/**
 * The HTTP status of each kind, wherever a failure is answered over HTTP
 * (REST, the registry's endpoint, MCP's refusals before a session).
 * `execution_failed` is a tool's own failure: the request itself succeeded.
 */
export const HTTP_STATUS = {
  invalid_params: 400,
  not_found: 404,
  unauthenticated: 401,
  forbidden: 403,
  idempotency_conflict: 409,
  too_large: 413,
  rate_limited: 429,
  timeout: 504,
  unavailable: 503,
  execution_failed: 200,
  pending: 202,
  internal: 500,
} as const satisfies Record<ErrorKind, number>;

export class BrokerError extends Error {
  override readonly name = "BrokerError";

  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  /** The shape frontends put on the wire: never a stack trace. */
  toJSON(): { kind: ErrorKind; message: string; details?: Record<string, unknown> } {
    return this.details === undefined
      ? { kind: this.kind, message: this.message }
      : { kind: this.kind, message: this.message, details: this.details };
  }
}

/**
 * A request that surely never reached its backend (the connection to it was
 * refused, or its host did not resolve): nothing ran, so the broker may send
 * it again once the source is back, where any other failure of a request in
 * flight is the caller's to retry. A source throws it after reporting itself
 * down; on the wire it is the `unavailable` it carries.
 */
export class NotDelivered extends BrokerError {
  constructor(error: BrokerError) {
    super(error.kind, error.message, error.details);
  }
}

/**
 * Any thrown value as a BrokerError. Unknown failures become `internal` with a
 * generic message, because their text may carry paths or secrets of the host.
 */
export function asBrokerError(err: unknown): BrokerError {
  if (err instanceof BrokerError) return err;
  return new BrokerError("internal", "internal error in the broker; see its log for details");
}

/**
 * How an MCP endpoint answers failures (docs/ERRORS.md): `mcp`, the specification,
 * or `emcp`, the eMCP contract, where invalid arguments and unknown tools or
 * models are protocol errors, not tool results.
 */
export type ErrorProfile = "mcp" | "emcp";

/** What a backend said, as it said it: relayed to clients of its own endpoint unchanged. */
export interface BackendProtocolError {
  code: number;
  message: string;
  data?: unknown;
}
