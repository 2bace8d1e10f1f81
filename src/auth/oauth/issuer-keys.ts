import type { FetchImplementation, JWTVerifyGetKey } from "jose";
import { z } from "zod";
import { BrokerError } from "../../contract/errors.js";
import { guardedFetch, type Fetch } from "../../net/guarded-fetch.js";
import { HostAllowlist } from "../../net/host-allowlist.js";

const MAX_DOCUMENT_BYTES = 1024 * 1024;
const TIMEOUT_MS = 5_000;
/**
 * A token signed by a key the set does not hold makes the set be fetched
 * again, at most this often: a rotated key is taken up within this time.
 */
const REFETCH_COOLDOWN_MS = 30_000;
/** How long a fetched set is trusted: a key the issuer withdrew is dropped within this time. */
const KEY_SET_MAX_AGE_MS = 5 * 60_000;

const IssuerMetadata = z.looseObject({ issuer: z.string(), jwks_uri: z.url() });

/**
 * The keys an issuer signs with: its JSON Web Key Set, found through its
 * metadata (RFC 8414, then OpenID Connect discovery) unless `jwksUrl` is
 * given, fetched on first use (a broker starts while its issuer is down),
 * cached, and fetched again for an unknown key id. Requests go to the issuer's
 * and the key set's hosts only, also after a redirect.
 */
export class IssuerKeys {
  private readonly request: Fetch;
  private keys: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    private readonly issuer: string,
    private readonly jwksUrl?: string,
    private readonly refetchCooldownMs = REFETCH_COOLDOWN_MS,
  ) {
    this.request = guardedFetch({
      policy: HostAllowlist.ofUrls(
        [issuer, ...(jwksUrl ? [jwksUrl] : [])],
        "the issuer's and jwks_uri's hosts",
      ),
      maxBytes: MAX_DOCUMENT_BYTES,
      timeoutMs: TIMEOUT_MS,
    });
  }

  /** jose's key lookup for `jwtVerify`; fails with `unavailable` while the issuer cannot be asked. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    this.keys ??= this.keySet().catch((err: unknown) => {
      this.keys = undefined;
      throw err;
    });
    return (await this.keys)(header, token);
  };

  private async keySet(): Promise<JWTVerifyGetKey> {
    const url = this.jwksUrl ?? (await this.discoverJwksUrl());
    const { createRemoteJWKSet, customFetch } = await import("jose");
    return createRemoteJWKSet(new URL(url), {
      cooldownDuration: this.refetchCooldownMs,
      cacheMaxAge: KEY_SET_MAX_AGE_MS,
      timeoutDuration: TIMEOUT_MS,
      [customFetch]: ((target, init) =>
        this.fetch(target, init.headers)) satisfies FetchImplementation,
    });
  }

  private async discoverJwksUrl(): Promise<string> {
    const base = this.issuer.replace(/\/$/, "");
    const { origin, pathname } = new URL(this.issuer);
    // RFC 8414 puts the well-known part before the issuer's path; OpenID after it.
    const candidates = [
      `${origin}/.well-known/oauth-authorization-server${pathname === "/" ? "" : pathname.replace(/\/$/, "")}`,
      `${base}/.well-known/openid-configuration`,
    ];
    const failures: string[] = [];
    for (const candidate of candidates) {
      const answer = await this.fetch(candidate, { accept: "application/json" });
      if (answer.status !== 200) {
        failures.push(`${new URL(candidate).pathname}: HTTP ${answer.status}`);
        continue;
      }
      const parsed = IssuerMetadata.safeParse(await answer.json().catch(() => undefined));
      if (!parsed.success) {
        failures.push(`${new URL(candidate).pathname}: no jwks_uri`);
        continue;
      }
      if (parsed.data.issuer !== this.issuer) {
        throw new BrokerError(
          "unavailable",
          `the authorization server's metadata names issuer "${parsed.data.issuer}", not "${this.issuer}" as configured`,
        );
      }
      return parsed.data.jwks_uri;
    }
    throw new BrokerError(
      "unavailable",
      `no key set found for issuer ${this.issuer} (${failures.join("; ")}); set auth.oauth.jwks_url`,
    );
  }

  private async fetch(
    target: string,
    headers: ConstructorParameters<typeof Headers>[0],
  ): Promise<Response> {
    try {
      return await this.request(target, { headers });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new BrokerError("unavailable", `cannot ask the authorization server: ${why}`);
    }
  }
}
