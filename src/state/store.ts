/**
 * The one place for state that must survive a restart or be shared by several
 * broker instances: idempotency records and rate-limit buckets. A small
 * key-value contract with TTLs and an atomic compare-and-set, which is enough
 * to build exactly-once and exact counting on top, on every implementation.
 */
export interface StateStore {
  readonly kind: "memory" | "sqlite" | "redis";
  /**
   * Messages between the broker instances sharing this store (Redis pub/sub);
   * absent where the store is one process's own.
   */
  readonly bus?: MessageBus;
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

/** Fire-and-forget messages to every instance listening on a channel, this one included. */
export interface MessageBus {
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message of the channel; returns the unsubscribe function. */
  subscribe(channel: string, listener: (message: string) => void): () => void;
}
