import { BrokerError } from "../../contract/errors.js";
import { isJsonObject, parseJson } from "../../contract/json-text.js";
import { HostAllowlist } from "../../net/host-allowlist.js";
import { guardedRequest } from "../../net/guarded-request.js";

export interface ClientCredentialsGrant {
  readonly token_url: string;
  readonly client_id: string;
  readonly client_secret: string;
  readonly scope?: string | undefined;
}

const TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024;
/** A token is replaced this long before it expires (or halfway through a shorter life). */
const RENEW_BEFORE_MS = 60_000;

/**
 * The broker's own access token for an API, by the OAuth client credentials
 * grant at the token URL (the client authenticated with HTTP Basic, RFC 6749
 * §2.3.1), kept until shortly before it expires and shared by concurrent
 * calls; `forget` drops it when the API refuses it. The secret goes to the
 * token URL's host only.
 */
export class ClientCredentialsToken {
  private current: { token: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(private readonly grant: ClientCredentialsGrant) {}

  async token(signal: AbortSignal): Promise<string> {
    if (this.current && Date.now() < this.current.renewAt) return this.current.token;
    this.pending ??= this.request(signal).finally(() => (this.pending = undefined));
    return this.pending;
  }

  forget(): void {
    this.current = undefined;
  }

  private async request(signal: AbortSignal): Promise<string> {
    const { token_url: url, client_id: id, client_secret: secret, scope } = this.grant;
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      ...(scope ? { scope } : {}),
    });
    const answer = await guardedRequest(url, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        accept: "application/json",
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`,
      },
      body: Buffer.from(form.toString()),
      policy: HostAllowlist.ofUrls([url], "the token URL's host"),
      maxBytes: MAX_ANSWER_BYTES,
      signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]),
    });
    const answered = parseJson(answer.body.toString("utf8"));
    const body: { access_token?: unknown; expires_in?: unknown; error?: unknown } = isJsonObject(
      answered,
    )
      ? answered
      : {};
    if (answer.status !== 200 || typeof body.access_token !== "string")
      throw new BrokerError(
        "unavailable",
        `the API's token URL ${new URL(url).origin} gave no token (HTTP ${answer.status}${typeof body.error === "string" ? `, ${body.error}` : ""})`,
      );
    const lifeMs = typeof body.expires_in === "number" ? body.expires_in * 1000 : 3_600_000;
    this.current = {
      token: body.access_token,
      renewAt: Date.now() + Math.max(lifeMs - RENEW_BEFORE_MS, lifeMs / 2),
    };
    return body.access_token;
  }
}
