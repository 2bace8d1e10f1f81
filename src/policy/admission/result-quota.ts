/** What a token may keep of idempotent results in this instance. */
export interface ResultQuotaLimits {
  /** A larger result is not kept. */
  readonly maxResultBytes: number;
  /** Results of one token kept at once, in bytes. */
  readonly maxBytesPerToken: number;
  /** Results of one token kept at once. */
  readonly maxKeysPerToken: number;
}

interface Kept {
  readonly bytes: number;
  readonly until: number;
}

/**
 * This instance's account of the idempotent results each token has stored,
 * until each expires: a result is kept only while the token's results fit
 * its share. No round trip to the store is spent on it; where several
 * instances share a store, each keeps its own account, so a token holds at
 * most that many shares there.
 */
export class ResultQuota {
  private readonly kept = new Map<string, Kept[]>();

  constructor(private readonly limits: ResultQuotaLimits) {}

  /**
   * Takes room for a result of `bytes` until `until` (epoch ms), or says
   * why there is none, in words for the caller.
   */
  take(token: string, bytes: number, until: number): string | undefined {
    const { maxResultBytes, maxBytesPerToken, maxKeysPerToken } = this.limits;
    if (bytes > maxResultBytes) {
      return `the result is ${bytes} bytes, over the ${maxResultBytes} an idempotent result may have (idempotency.max_result_bytes)`;
    }
    const now = Date.now();
    const live = (this.kept.get(token) ?? []).filter((k) => k.until > now);
    const held = live.reduce((sum, k) => sum + k.bytes, 0);
    if (live.length >= maxKeysPerToken || held + bytes > maxBytesPerToken) {
      this.kept.set(token, live);
      return `this token already keeps ${live.length} results of ${held} bytes, at most ${maxKeysPerToken} or ${maxBytesPerToken} bytes (idempotency.max_keys_per_token, max_bytes_per_token)`;
    }
    live.push({ bytes, until });
    this.kept.set(token, live);
    return undefined;
  }
}
