import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { HttpBindings } from "@hono/node-server";
import type { Credentials } from "../../../auth/credentials.js";
import { EVERYONE } from "../../../auth/token-book.js";
import type { Logger } from "../../../contract/log.js";
import { HTTP_STATUS } from "../../../contract/errors.js";
import type { Principal } from "../../../contract/router.js";

/**
 * Every route's environment: the caller's principal, why a token was refused
 * (for the log), and Node's request and response.
 */
export type AuthEnv = {
  Variables: { principal: Principal; refusal: string };
  Bindings: HttpBindings;
};

/** Why credentials were refused, as logs and metrics count it. */
export type RefusalReason = "missing" | "malformed" | "invalid";

export interface TokenAuthOptions {
  /** The tokens callers must present; credentials that require none let everyone in. */
  readonly credentials: () => Credentials;
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
const ERRORS = {
  missing: undefined,
  malformed: "invalid_request",
  invalid: "invalid_token",
} as const;

/**
 * Finds the caller's principal from `Authorization: Bearer TOKEN` (parsed by
 * Hono's `bearerAuth`): a static token, or with OAuth a JWT of the issuer.
 * Otherwise answers 401 with the broker's JSON error body and a
 * `WWW-Authenticate` challenge, which with OAuth points to the protected
 * resource metadata (`resource_metadata="…"`), as MCP clients expect. Each
 * refusal is one warn log line (remote address and reason, never the token)
 * and a count. Credentials that require nothing let every caller in as
 * `anonymous` with every scope. While the issuer's keys cannot be fetched, a
 * JWT gets 503, not 401: the token may be good, and the client should retry.
 *
 * @example
 * app.use("*", tokenAuth({ credentials: () => credentials, log, refused: (r) => metrics.tokenRefused(r) }));
 */
export function tokenAuth(options: TokenAuthOptions): MiddlewareHandler<AuthEnv> {
  const refuse = (reason: RefusalReason) => (c: Context<AuthEnv>) => {
    const why = c.get("refusal");
    options.log.warn(
      { remote: remoteAddress(c), path: c.req.path, reason, ...(why ? { why } : {}) },
      "credentials refused",
    );
    options.refused?.(reason);
    return Response.json(
      {
        error: {
          kind: "unauthenticated",
          message: MESSAGES[reason] + (reason === "invalid" ? "" : howToAuthenticate()),
        },
      },
      { status: HTTP_STATUS.unauthenticated },
    );
  };
  // A client that sent nothing may not know what to send: clients mostly expect OAuth.
  const howToAuthenticate = () => {
    const oauth = options.credentials().oauth;
    return oauth
      ? `; get one from ${oauth.resource.issuer}, as WWW-Authenticate's resource_metadata says`
      : "; this broker takes the tokens its config lists (no OAuth sign-in): configure the client to send its token in that header";
  };
  const challenge = (reason: RefusalReason) => (c: Context<AuthEnv>) => {
    const oauth = options.credentials().oauth;
    const error = ERRORS[reason];
    if (oauth) return oauth.resource.challenge(new URL(c.req.url).origin, c.req.path, error);
    return `Bearer realm="${REALM}"${error ? `, error="${error}"` : ""}`;
  };
  const bearer = bearerAuth<AuthEnv>({
    verifyToken: async (token, c) => {
      const verdict = await options.credentials().authenticate(token);
      if ("principal" in verdict) c.set("principal", verdict.principal);
      else c.set("refusal", verdict.reason);
      return "principal" in verdict;
    },
    noAuthenticationHeader: {
      wwwAuthenticateHeader: challenge("missing"),
      message: refuse("missing"),
    },
    invalidAuthenticationHeader: {
      wwwAuthenticateHeader: challenge("malformed"),
      message: refuse("malformed"),
    },
    invalidToken: {
      wwwAuthenticateHeader: challenge("invalid"),
      message: refuse("invalid"),
    },
  });
  return async function tokenAuthMiddleware(c, next) {
    if (!options.credentials().required) {
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
