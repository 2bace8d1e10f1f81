import {
  auth,
  ClientCredentialsProvider,
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
  /** The only authorization server the secret may be sent to. */
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
 * at once when the backend answers 401. Never the caller's token. Discovery
 * and token requests go to the backend's host, the configured issuer's, or
 * public addresses only (SSRF guard: a backend cannot point them inward).
 */
export class ClientCredentials implements AuthProvider {
  private current: { token: string; renewAt: number } | undefined;
  private renewing: Promise<string> | undefined;
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
      ...(this.settings.issuer ? { expectedIssuer: this.settings.issuer } : {}),
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
