/**
 * The one place for state that must survive a restart or be shared by several
 * broker instances: idempotency records and rate-limit buckets. A small
 * key-value contract with TTLs and an atomic compare-and-set, which is enough
 * to build exactly-once and exact counting on top, on every implementation.
 */
export interface StateStore {
  readonly kind: "memory" | "sqlite" | "redis";
  /** The value, or undefined when absent or expired. */
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * Writes `value` only if the current value is `expected` (undefined: only if
   * absent), atomically, even across instances. True when it wrote.
   */
  compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlMs: number,
  ): Promise<boolean>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
