import type { MiddlewareHandler } from "hono";
import { EVERYONE, type TokenBook } from "../../../auth/token-book.js";
import { BrokerError } from "../../../contract/errors.js";
import type { Principal } from "../../../contract/router.js";

export type AuthEnv = { Variables: { principal: Principal } };

/**
 * Finds the caller's principal from `Authorization: Bearer TOKEN`, or answers
 * 401 with `WWW-Authenticate`. A broker with no tokens asks nothing: every
 * caller is `anonymous` with every scope.
 *
 * @example
 * app.use("*", tokenAuth(() => new TokenBook(config.auth?.tokens ?? [], secret)));
 */
export function tokenAuth(tokens: () => TokenBook): MiddlewareHandler<AuthEnv> {
  return async function tokenAuthMiddleware(c, next) {
    const book = tokens();
    if (!book.required) {
      c.set("principal", EVERYONE);
      return next();
    }
    const header = c.req.header("authorization");
    const token = header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    const principal = token === undefined ? undefined : book.authenticate(token);
    if (!principal) {
      c.header("WWW-Authenticate", 'Bearer realm="mcp-broker"');
      throw new BrokerError(
        "unauthenticated",
        header === undefined
          ? 'missing "Authorization: Bearer <token>" header'
          : token === undefined
            ? 'the Authorization header is not "Bearer <token>"'
            : "the bearer token is not valid",
      );
    }
    c.set("principal", principal);
    await next();
  };
}
