import type { JWTPayload, JWTVerifyGetKey } from "jose";
import { LRUCache } from "lru-cache";
import { OAUTH_ALGORITHMS, type OAuthConfig } from "../../config/schema.js";
import { BrokerError } from "../../contract/errors.js";
import type { Principal } from "../../contract/router.js";
import { sha256 } from "../token-book.js";
import { brokerScopes, tokenScopes, type ScopeMap } from "./token-scopes.js";

const DEFAULT_CLOCK_SKEW_S = 30;
/** What a JWT principal's id begins with, before its subject. */
export const OAUTH_PRINCIPAL_PREFIX = "oauth:";
/** Verified tokens remembered, by digest: a client sends the same token on every request. */
const REMEMBERED_TOKENS = 10_000;
/** ...for at most this long, so a withdrawn key stops working soon even for a known token. */
const REMEMBER_MS = 60_000;

/** Why a token was refused, for the log (never the token). */
export type JwtRefusal = { readonly reason: string };

/** A verified token's principal, or why it was refused. */
export type JwtVerdict = { readonly principal: Principal } | JwtRefusal;

/**
 * Verifies bearer JWTs as an OAuth 2.1 resource server: the signature against
 * the issuer's keys (asymmetric algorithms from an allowlist only: `none` and
 * HS* never, so a public key cannot be used as an HMAC secret), `iss`, `aud`,
 * `exp` (required), `nbf` and `iat` with a small clock skew (a token issued
 * in the future is refused). The principal's id is `oauth:` and the token's
 * `sub` (or, for a client's own token, `client_id`/`azp`): a static token's
 * id has no `:`, so the two kinds of principal never meet, whatever a token
 * says its subject is. Its scopes are the token's scopes through `scope_map`
 * (and, with `literal_scopes`, those written as broker scopes).
 */
export class JwtVerifier {
  private readonly remembered = new LRUCache<string, { principal: Principal; until: number }>({
    max: REMEMBERED_TOKENS,
  });
  private readonly scopeMap: ScopeMap;

  constructor(
    private readonly settings: OAuthConfig,
    private readonly getKey: JWTVerifyGetKey,
  ) {
    this.scopeMap = settings.scope_map ?? {};
  }

  /**
   * Throws `unavailable` when the issuer's keys cannot be had: the token may
   * well be good. `digest` is the token's SHA-256, if the caller has it already.
   */
  async verify(token: string, digest: Buffer = sha256(token)): Promise<JwtVerdict> {
    const key = digest.toString("base64url");
    const known = this.remembered.get(key);
    if (known && known.until > Date.now()) return { principal: known.principal };
    // jose is loaded by the first token to verify: a broker without OAuth never does.
    const { errors, jwtVerify } = await import("jose");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.getKey, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        algorithms: [...(this.settings.algorithms ?? OAUTH_ALGORITHMS)],
        clockTolerance: this.settings.clock_skew_s ?? DEFAULT_CLOCK_SKEW_S,
        requiredClaims: ["exp"],
      }));
    } catch (err) {
      if (err instanceof BrokerError) throw err;
      if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid) {
        throw new BrokerError("unavailable", "the authorization server's key set cannot be read");
      }
      if (err instanceof errors.JOSEError && err.code === "ERR_JOSE_GENERIC") {
        throw new BrokerError("unavailable", `the authorization server's key set: ${err.message}`);
      }
      return { reason: refusalOf(err, errors) };
    }
    const skewS = this.settings.clock_skew_s ?? DEFAULT_CLOCK_SKEW_S;
    if (typeof payload.iat === "number" && payload.iat > Date.now() / 1000 + skewS) {
      return { reason: "the token was issued in the future (iat past the clock skew)" };
    }
    const subject = [payload.sub, payload.client_id, payload.azp].find(
      (v): v is string => typeof v === "string" && v !== "",
    );
    if (subject === undefined) {
      return { reason: "the token names no subject (sub, client_id or azp)" };
    }
    const principal: Principal = {
      id: `${OAUTH_PRINCIPAL_PREFIX}${subject}`,
      scopes: brokerScopes(
        tokenScopes(payload, this.settings.scopes_claim),
        this.scopeMap,
        this.settings.literal_scopes === true,
      ),
    };
    const until = Math.min(Date.now() + REMEMBER_MS, (payload.exp as number) * 1000);
    this.remembered.set(key, { principal, until });
    return { principal };
  }
}

function refusalOf(err: unknown, errors: typeof import("jose").errors): string {
  if (err instanceof errors.JWTExpired) return "the token has expired";
  if (err instanceof errors.JWTClaimValidationFailed) return `claim ${err.claim}: ${err.reason}`;
  if (err instanceof errors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (err instanceof errors.JWKSNoMatchingKey) return "no key of the issuer matches the token";
  if (err instanceof errors.JWSSignatureVerificationFailed) return "the signature does not verify";
  if (err instanceof errors.JOSEError) return `not a valid JWT (${err.code})`;
  return "not a valid JWT";
}
