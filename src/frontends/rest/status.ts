import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorKind } from "../../contract/errors.js";

/** HTTP status of each error kind on the REST meta API (DESIGN.md, error table). */
export const REST_STATUS: Record<ErrorKind, ContentfulStatusCode> = {
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
  internal: 500,
};
