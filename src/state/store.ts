/**
 * The one place for state that must survive a restart or be shared by several
 * broker instances: idempotency records, rate-limit buckets, tasks. A small
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
   * Writes as `set` does, but resolves as soon as the write no longer depends
   * on this process: where the store is another process (Redis), once the
   * command is in the kernel's hands, without waiting for the store's answer
   * (a failure then goes to the log). For what must be stored before an
   * answer leaves, at no extra round trip.
   */
  handOff(key: string, value: string, ttlMs: number): Promise<void>;
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
  /**
   * Removes `key`; with `expected`, only while it holds that value,
   * atomically, even across instances (a claim is released by its holder
   * only, never once another has taken it over).
   */
  delete(key: string, expected?: string): Promise<void>;
  /**
   * Lets a call in, in one step (at most one round trip to a shared store): when
   * `claim`'s key is held, answers what holds it and takes nothing; else
   * takes a token from every bucket, all or none, and then claims the key.
   */
  admit(buckets: readonly Bucket[], claim?: Claim): Promise<Admission>;
  /**
   * The values of the live keys that start with `prefix`, at most `max` of
   * them, in no set order: for the few records that are looked up by kind
   * (tasks awaiting a decision), never for what a call path reads.
   */
  valuesUnder(prefix: string, max: number): Promise<string[]>;
  close(): Promise<void>;
}

/** A token bucket: `perMinute` tokens a minute, at most `burst` at once. */
export interface Bucket {
  readonly key: string;
  readonly perMinute: number;
  readonly burst: number;
}

/** A key to hold while a call runs, for `leaseMs` unless renewed. */
export interface Claim {
  readonly key: string;
  readonly value: string;
  readonly leaseMs: number;
}

export type Admission =
  | { readonly admitted: true }
  /** The bucket at `bucket` is empty: a token comes in `waitS` seconds. */
  | { readonly admitted: false; readonly bucket: number; readonly waitS: number }
  /** The claim's key is held: its value. */
  | { readonly admitted: false; readonly held: string };

/** Fire-and-forget messages to every instance listening on a channel, this one included. */
export interface MessageBus {
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message of the channel; returns the unsubscribe function. */
  subscribe(channel: string, listener: (message: string) => void): () => void;
}

/** A store other instances share: one with a bus. */
export type SharedStore = StateStore & { readonly bus: MessageBus };

export function isShared(store: StateStore): store is SharedStore {
  return store.bus !== undefined;
}
