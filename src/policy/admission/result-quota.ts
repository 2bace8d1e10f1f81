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
 * One token's kept results in the order they expire, with their count and
 * bytes kept as running sums: a call looks only at the results that expired
 * since the last, not at all of them (a token may keep ten thousand).
 */
class TokenAccount {
  /** Expiry order from `head` on; what is before `head` has expired. */
  private readonly kept: Kept[] = [];
  private head = 0;
  bytes = 0;

  get count(): number {
    return this.kept.length - this.head;
  }

  expire(now: number): void {
    while (this.head < this.kept.length && this.kept[this.head]!.until <= now) {
      this.bytes -= this.kept[this.head]!.bytes;
      this.head++;
    }
    // Dropped in one step once the expired are half the array: amortized constant per result.
    if (this.head > 64 && this.head * 2 >= this.kept.length) {
      this.kept.splice(0, this.head);
      this.head = 0;
    }
  }

  add(result: Kept): void {
    // Results of one quota share a TTL, so they come in expiry order; a clock set back does not.
    let at = this.kept.length;
    while (at > this.head && this.kept[at - 1]!.until > result.until) at--;
    if (at === this.kept.length) this.kept.push(result);
    else this.kept.splice(at, 0, result);
    this.bytes += result.bytes;
  }
}

const SWEEP_EVERY = 4096;

/**
 * This instance's account of the idempotent results each token has stored,
 * until each expires: a result is kept only while the token's results fit
 * its share. No round trip to the store is spent on it; where several
 * instances share a store, each keeps its own account, so a token holds at
 * most that many shares there.
 */
export class ResultQuota {
  private readonly accounts = new Map<string, TokenAccount>();
  /** Takes until the next sweep of the accounts whose results all expired (callers come and go). */
  private untilSweep = SWEEP_EVERY;

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
    if (--this.untilSweep === 0) this.sweep(now);
    let account = this.accounts.get(token);
    if (account === undefined) this.accounts.set(token, (account = new TokenAccount()));
    account.expire(now);
    if (account.count >= maxKeysPerToken || account.bytes + bytes > maxBytesPerToken) {
      return `this token already keeps ${account.count} results of ${account.bytes} bytes, at most ${maxKeysPerToken} or ${maxBytesPerToken} bytes (idempotency.max_keys_per_token, max_bytes_per_token)`;
    }
    account.add({ bytes, until });
    return undefined;
  }

  private sweep(now: number): void {
    this.untilSweep = SWEEP_EVERY;
    for (const [token, account] of this.accounts) {
      account.expire(now);
      if (account.count === 0) this.accounts.delete(token);
    }
  }
}
