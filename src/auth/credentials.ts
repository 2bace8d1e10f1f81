import type { OAuthConfig } from "../config/schema.js";
import type { Principal } from "../contract/router.js";
import { IssuerKeys } from "./oauth/issuer-keys.js";
import { JwtVerifier, type JwtVerdict } from "./oauth/jwt-verifier.js";
import { ProtectedResource } from "./oauth/protected-resource.js";
import { sha256, TokenBook, type TokenEntry } from "./token-book.js";

/** A bearer token's shape as a JWT: three base64url parts. */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** OAuth's part of the credentials: the verifier and the resource it guards. */
export interface OAuthCredentials {
  readonly settings: OAuthConfig;
  readonly verifier: JwtVerifier;
  readonly resource: ProtectedResource;
}

/**
 * What the broker accepts as a bearer token: a static token (by digest, in
 * constant time) or, with `auth.oauth`, a JWT of the configured issuer.
 */
export class Credentials {
  constructor(
    readonly tokens: TokenBook,
    readonly oauth?: OAuthCredentials,
  ) {}

  /** False when nothing is asked of callers. */
  get required(): boolean {
    return this.tokens.required || this.oauth !== undefined;
  }

  /** The principal of a presented token, or why it has none; throws `unavailable` (see JwtVerifier). */
  async authenticate(token: string): Promise<JwtVerdict> {
    // One digest serves both: the static tokens' lookup and the verified JWTs' memory.
    const digest = sha256(token);
    const principal: Principal | undefined = this.tokens.authenticateDigest(digest);
    if (principal) return { principal };
    if (this.oauth && JWT.test(token)) return this.oauth.verifier.verify(token, digest);
    return { reason: "no such token" };
  }
}

/**
 * The credentials of a config. The OAuth part (its key set and remembered
 * tokens) is kept from `previous` when its settings did not change.
 */
export function credentialsOf(
  auth: { tokens?: readonly TokenEntry[]; oauth?: OAuthConfig } | undefined,
  secret: string | undefined,
  previous?: Credentials,
): Credentials {
  const tokens = new TokenBook(auth?.tokens ?? [], secret);
  const settings = auth?.oauth;
  if (!settings) return new Credentials(tokens);
  if (previous?.oauth && JSON.stringify(previous.oauth.settings) === JSON.stringify(settings)) {
    return new Credentials(tokens, previous.oauth);
  }
  const keys = new IssuerKeys(settings.issuer, settings.jwks_url);
  return new Credentials(tokens, {
    settings,
    verifier: new JwtVerifier(settings, keys.getKey),
    resource: new ProtectedResource(settings),
  });
}
