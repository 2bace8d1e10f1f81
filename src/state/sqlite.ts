import Database from "better-sqlite3";
import { admitBySteps } from "./admit-by-steps.js";
import type { Admission, Bucket, Claim, StateStore } from "./store.js";

/**
 * State in a SQLite file: survives restarts; several broker processes on one
 * host may share the file (writes take SQLite's write lock, so compare-and-set
 * stays atomic across them).
 */
export class SqliteStore implements StateStore {
  readonly kind = "sqlite";
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string, number], { value: string }>;
  private readonly upsert: Database.Statement<[string, string, number]>;
  private readonly remove: Database.Statement<[string]>;
  private readonly removeIf: Database.Statement<[string, string]>;
  private readonly under: Database.Statement<[number, string, number, number], { value: string }>;
  private readonly cas: (
    key: string,
    expected: string | undefined,
    value: string,
    expires: number,
  ) => boolean;
  private readonly sweeper: NodeJS.Timeout;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    this.db.exec(
      "CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires INTEGER NOT NULL)",
    );
    this.select = this.db.prepare("SELECT value FROM state WHERE key = ? AND expires > ?");
    this.upsert = this.db.prepare(
      "INSERT INTO state (key, value, expires) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires = excluded.expires",
    );
    this.remove = this.db.prepare("DELETE FROM state WHERE key = ?");
    this.removeIf = this.db.prepare("DELETE FROM state WHERE key = ? AND value = ?");
    // substr, not LIKE: a prefix is matched as it is, its % and _ included.
    this.under = this.db.prepare(
      "SELECT value FROM state WHERE substr(key, 1, ?) = ? AND expires > ? LIMIT ?",
    );
    const sweep = this.db.prepare("DELETE FROM state WHERE expires <= ?");
    const cas = this.db.transaction(
      (key: string, expected: string | undefined, value: string, expires: number) => {
        const current = this.select.get(key, Date.now())?.value;
        if (current !== expected) return false;
        this.upsert.run(key, value, expires);
        return true;
      },
    );
    // IMMEDIATE takes the write lock before reading, so two processes cannot both read the old value.
    this.cas = (...args) => cas.immediate(...args);
    this.sweeper = setInterval(() => sweep.run(Date.now()), 60_000);
    this.sweeper.unref();
  }

  async get(key: string): Promise<string | undefined> {
    return this.select.get(key, Date.now())?.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.upsert.run(key, value, Date.now() + ttlMs);
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
    return this.cas(key, expected, value, Date.now() + ttlMs);
  }

  async delete(key: string, expected?: string): Promise<void> {
    if (expected === undefined) this.remove.run(key);
    else this.removeIf.run(key, expected);
  }

  admit(buckets: readonly Bucket[], claim?: Claim): Promise<Admission> {
    return admitBySteps(this, buckets, claim);
  }

  async valuesUnder(prefix: string, max: number): Promise<string[]> {
    return this.under.all(prefix.length, prefix, Date.now(), max).map((row) => row.value);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.db.close();
  }
}
