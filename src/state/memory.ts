import { admitBySteps } from "./admit-by-steps.js";
import type { Admission, Bucket, Claim, StateStore } from "./store.js";

/** State in this process: the default; gone on restart, not shared. */
export class MemoryStore implements StateStore {
  readonly kind = "memory";
  private readonly entries = new Map<string, { value: string; expires: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(sweepEveryMs = 60_000) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  async get(key: string): Promise<string | undefined> {
    return this.live(key);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, { value, expires: Date.now() + ttlMs });
  }

  /** A write here is done when `set` returns: nothing is left to hand off. */
  handOff(key: string, value: string, ttlMs: number): Promise<void> {
    return this.set(key, value, ttlMs);
  }

  async compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlMs: number,
  ): Promise<boolean> {
    if (this.live(key) !== expected) return false;
    this.entries.set(key, { value, expires: Date.now() + ttlMs });
    return true;
  }

  async delete(key: string, expected?: string): Promise<void> {
    if (expected !== undefined && this.live(key) !== expected) return;
    this.entries.delete(key);
  }

  admit(buckets: readonly Bucket[], claim?: Claim): Promise<Admission> {
    return admitBySteps(this, buckets, claim);
  }

  async valuesUnder(prefix: string, max: number): Promise<string[]> {
    const values: string[] = [];
    for (const key of this.entries.keys()) {
      if (values.length >= max) break;
      const value = key.startsWith(prefix) ? this.live(key) : undefined;
      if (value !== undefined) values.push(value);
    }
    return values;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.entries.clear();
  }

  private live(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires > Date.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.entries.delete(key);
  }
}
