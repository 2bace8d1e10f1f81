import {
  auth,
  ClientCredentialsProvider,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  type AuthProvider,
  type FetchLike,
} from "@modelcontextprotocol/client";
import { guardedFetch } from "../../net/guarded-fetch.js";
import type { AddressPolicy } from "../../net/address-policy.js";
import { PublicAddresses } from "../../net/public-addresses.js";

/** The OAuth client credentials of an HTTP backend (its config's `auth.client_credentials`). */
export interface ClientCredentialsSettings {
  readonly client_id: string;
  readonly client_secret: string;
  readonly scope?: string | undefined;
  /**
   * The only authorization server the secret may be sent to. Without it,
   * only one on the backend's own host.
   */
  readonly issuer?: string | undefined;
}

const MAX_ANSWER_BYTES = 1024 * 1024;
const TIMEOUT_MS = 10_000;
/**
 * A token is replaced this long before it expires, or halfway through its
 * life if that is shorter: `exp` and `expires_in` count whole seconds.
 */
const RENEW_BEFORE_MS = 60_000;

/**
 * The broker's own token for an HTTP backend, by the OAuth client
 * credentials grant against the backend's authorization server, found from
 * its protected resource metadata (the SDK's `auth()` does discovery and the
 * grant, with the backend's URL as `resource`). Renewed before it expires, and
 * at once when the backend answers 401. Never the caller's token. The secret
 * goes to the configured `issuer` only, or, without one, to an authorization
 * server on the backend's own host: a backend cannot send it elsewhere. Discovery
 * and token requests go to the backend's host, the configured issuer's, or
 * public addresses only (SSRF guard: a backend cannot point them inward).
 */
export class ClientCredentials implements AuthProvider {
  private current: { token: string; renewAt: number } | undefined;
  private renewing: Promise<string> | undefined;
  private issuer: Promise<string> | undefined;
  private readonly fetch: FetchLike;

  constructor(
    private readonly serverUrl: string,
    private readonly settings: ClientCredentialsSettings,
  ) {
    this.fetch = guardedFetch({
      policy: new TrustedHosts(
        [serverUrl, settings.issuer].flatMap((u) => (u ? [new URL(u).hostname] : [])),
      ),
      maxBytes: MAX_ANSWER_BYTES,
      timeoutMs: TIMEOUT_MS,
    });
  }

  async token(): Promise<string | undefined> {
    if (this.current && Date.now() < this.current.renewAt) return this.current.token;
    return this.renew();
  }

  async onUnauthorized(): Promise<void> {
    this.current = undefined;
    await this.renew();
  }

  private renew(): Promise<string> {
    this.renewing ??= this.grant().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async grant(): Promise<string> {
    // A provider per grant: it holds no earlier token, so the SDK asks for a new one.
    const provider = new ClientCredentialsProvider({
      clientId: this.settings.client_id,
      clientSecret: this.settings.client_secret,
      ...(this.settings.scope ? { scope: this.settings.scope } : {}),
      expectedIssuer: await this.expectedIssuer(),
    });
    await auth(provider, { serverUrl: this.serverUrl, fetchFn: this.fetch });
    const tokens = provider.tokens();
    if (!tokens) throw new Error(`no token from the authorization server of ${this.serverUrl}`);
    const lifetimeMs = (tokens.expires_in ?? 3600) * 1000;
    this.current = {
      token: tokens.access_token,
      renewAt: Date.now() + lifetimeMs - Math.min(RENEW_BEFORE_MS, lifetimeMs / 2),
    };
    return tokens.access_token;
  }

  /** The configured issuer, else the backend's own (found once; looked for again after a failure). */
  private expectedIssuer(): Promise<string> {
    if (this.settings.issuer) return Promise.resolve(this.settings.issuer);
    this.issuer ??= ownIssuer(this.serverUrl, this.fetch).catch((err: unknown) => {
      this.issuer = undefined;
      throw err;
    });
    return this.issuer;
  }
}

/**
 * The issuer of the authorization server a backend names (RFC 9728; without
 * protected resource metadata, its own origin, as the SDK's discovery falls
 * back to), if that server is on the backend's host. One elsewhere must be
 * configured as `issuer`: otherwise whoever answers for the backend would
 * choose where the client secret goes.
 */
async function ownIssuer(serverUrl: string, fetchFn: FetchLike): Promise<string> {
  let named: string | undefined;
  try {
    const resource = await discoverOAuthProtectedResourceMetadata(serverUrl, undefined, fetchFn);
    named = resource.authorization_servers?.[0];
  } catch (err) {
    // As the SDK's discovery: a network failure stops it; no metadata means the fallback.
    if (err instanceof TypeError) throw err;
  }
  named ??= new URL("/", serverUrl).href;
  if (new URL(named).hostname !== new URL(serverUrl).hostname)
    throw new Error(
      `the backend names ${named} as its authorization server, on another host: to send it the client secret, set auth.client_credentials.issuer to that server's issuer`,
    );
  const metadata = await discoverAuthorizationServerMetadata(named, { fetchFn });
  return metadata?.issuer ?? named;
}

/** The backend's and the issuer's hosts wherever they resolve; anything else on public addresses only. */
class TrustedHosts implements AddressPolicy {
  private readonly publicOnly = new PublicAddresses("a backend's auth.client_credentials");

  constructor(private readonly hosts: readonly string[]) {}

  allows(host: string, address: string): boolean {
    return this.hosts.includes(host) || this.publicOnly.allows(host, address);
  }

  refusal(): string {
    return this.publicOnly.refusal();
  }
}
