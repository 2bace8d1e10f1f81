import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { BrokerError } from "../../../core/errors.js";

/**
 * Demands `Authorization: Bearer SECRET` on every request it guards. The
 * comparison is of SHA-256 digests with `timingSafeEqual`, so neither the
 * secret's content nor its length leaks through timing.
 *
 * @example
 * app.use("*", bearerAuth("s3cret"));
 */
export function bearerAuth(secret: string): MiddlewareHandler {
  const expected = digest(secret);
  return async function bearerAuthMiddleware(c, next) {
    const header = c.req.header("authorization");
    const match = header === undefined ? null : /^Bearer\s+(.+)$/i.exec(header.trim());
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), expected)) {
      c.header("WWW-Authenticate", 'Bearer realm="mcp-broker"');
      throw new BrokerError(
        "unauthenticated",
        header === undefined
          ? 'missing "Authorization: Bearer <secret>" header'
          : "the bearer secret is not valid",
      );
    }
    await next();
  };
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}
