import type { StateStore } from "../../state/store.js";

export interface BucketRule {
  readonly perMinute: number;
  readonly burst: number;
}

/**
 * Takes one token from a bucket kept in the state store, refilled at
 * `perMinute / 60` per second up to `burst`. Compare-and-set makes it exact
 * when many calls, on one instance or several, take at once. Returns 0 when a
 * token was taken, else the seconds until one will be there.
 */
export async function takeToken(
  store: StateStore,
  key: string,
  rule: BucketRule,
  now = Date.now,
): Promise<number> {
  const perMs = rule.perMinute / 60_000;
  const ttlMs = Math.ceil(rule.burst / perMs) + 60_000;
  for (;;) {
    const raw = await store.get(key);
    const at = now();
    const state =
      raw === undefined
        ? { tokens: rule.burst, at }
        : (JSON.parse(raw) as { tokens: number; at: number });
    const tokens = Math.min(rule.burst, state.tokens + Math.max(0, at - state.at) * perMs);
    if (tokens < 1) return Math.max(1, Math.ceil((1 - tokens) / perMs / 1000));
    if (await store.compareAndSet(key, raw, JSON.stringify({ tokens: tokens - 1, at }), ttlMs))
      return 0;
  }
}
