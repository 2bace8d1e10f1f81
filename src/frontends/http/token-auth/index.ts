import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { HttpBindings } from "@hono/node-server";
import { EVERYONE, type TokenBook } from "../../../auth/token-book.js";
import type { Logger } from "../../../contract/log.js";
import type { Principal } from "../../../contract/router.js";
import { REST_STATUS } from "../../rest/status.js";

/** Every route's environment: the caller's principal, and Node's request and response. */
export type AuthEnv = { Variables: { principal: Principal }; Bindings: HttpBindings };

/** Why credentials were refused, as logs and metrics count it. */
export type RefusalReason = "missing" | "malformed" | "invalid";

export interface TokenAuthOptions {
  /** The tokens callers must present; a book that requires none lets everyone in. */
  readonly tokens: () => TokenBook;
  readonly log: Logger;
  /** Counts a refusal (the metrics' counter). */
  readonly refused?: (reason: RefusalReason) => void;
}

const REALM = "mcp-broker";
const MESSAGES: Record<RefusalReason, string> = {
  missing: 'missing "Authorization: Bearer <token>" header',
  malformed: 'the Authorization header is not "Bearer <token>"',
  invalid: "the bearer token is not valid",
};

/**
 * Finds the caller's principal from `Authorization: Bearer TOKEN` (parsed by
 * Hono's `bearerAuth`), or answers 401 with `WWW-Authenticate` and the
 * broker's JSON error body. Each refusal is one warn log line (remote address
 * and reason, never the token) and a count. A broker with no tokens asks
 * nothing: every caller is `anonymous` with every scope.
 *
 * @example
 * app.use("*", tokenAuth({ tokens: () => book, log, refused: (r) => metrics.tokenRefused(r) }));
 */
export function tokenAuth(options: TokenAuthOptions): MiddlewareHandler<AuthEnv> {
  const refuse = (reason: RefusalReason) => (c: Context) => {
    options.log.warn({ remote: remoteAddress(c), path: c.req.path, reason }, "credentials refused");
    options.refused?.(reason);
    return Response.json(
      { error: { kind: "unauthenticated", message: MESSAGES[reason] } },
      { status: REST_STATUS.unauthenticated },
    );
  };
  const bearer = bearerAuth<AuthEnv>({
    realm: REALM,
    verifyToken: (token, c) => {
      const principal = options.tokens().authenticate(token);
      if (principal) c.set("principal", principal);
      return principal !== undefined;
    },
    noAuthenticationHeader: {
      wwwAuthenticateHeader: `Bearer realm="${REALM}"`,
      message: refuse("missing"),
    },
    invalidAuthenticationHeader: {
      wwwAuthenticateHeader: `Bearer realm="${REALM}", error="invalid_request"`,
      message: refuse("malformed"),
    },
    invalidToken: {
      wwwAuthenticateHeader: `Bearer realm="${REALM}", error="invalid_token"`,
      message: refuse("invalid"),
    },
  });
  return async function tokenAuthMiddleware(c, next) {
    if (!options.tokens().required) {
      c.set("principal", EVERYONE);
      return next();
    }
    return bearer(c, next);
  };
}

/** The peer's address; unknown where the request did not come over a socket (tests' `app.request`). */
function remoteAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}
