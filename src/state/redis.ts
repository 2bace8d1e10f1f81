import { Redis } from "ioredis";
import { BrokerError } from "../contract/errors.js";
import { RedisBus } from "./redis-bus.js";
import type { StateStore } from "./store.js";

/** Compare-and-set as one Lua script, so it is atomic on the Redis server. */
const CAS = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '0' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
return 1`;

/**
 * State in Redis, shared by every broker instance that points at it. Commands
 * fail at once while Redis is unreachable (no offline queue), so a call that
 * needs the store fails with `unavailable` instead of waiting or going on
 * without its guarantee.
 */
export class RedisStore implements StateStore {
  readonly kind = "redis";
  readonly bus: RedisBus;
  private readonly redis: Redis;

  constructor(url: string, prefix = "mcp-broker:") {
    this.redis = new Redis(url, {
      keyPrefix: prefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      lazyConnect: false,
    });
    // Errors surface on the commands; this keeps them off the process's unhandled errors.
    this.redis.on("error", () => undefined);
    this.bus = new RedisBus(url, this.redis);
  }

  /** Resolves once connected, or rejects with `unavailable` naming the store. */
  async ready(): Promise<void> {
    if (this.redis.status === "ready") return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(this.unreachable(new Error("no answer within 2 s"))),
        2000,
      );
      this.redis.once("ready", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  get(key: string): Promise<string | undefined> {
    return this.run(async () => (await this.redis.get(key)) ?? undefined);
  }

  set(key: string, value: string, ttlMs: number): Promise<void> {
    return this.run(async () => {
      await this.redis.set(key, value, "PX", Math.max(1, Math.round(ttlMs)));
    });
  }

  compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlMs: number,
  ): Promise<boolean> {
    return this.run(async () => {
      const wrote = await this.redis.eval(
        CAS,
        1,
        key,
        expected === undefined ? "0" : "1",
        expected ?? "",
        value,
        Math.max(1, Math.round(ttlMs)),
      );
      return wrote === 1;
    });
  }

  delete(key: string): Promise<void> {
    return this.run(async () => {
      await this.redis.del(key);
    });
  }

  async close(): Promise<void> {
    this.bus.close();
    this.redis.disconnect();
  }

  private async run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw this.unreachable(err as Error);
    }
  }

  private unreachable(err: Error): BrokerError {
    return new BrokerError(
      "unavailable",
      `the state store (Redis) is unreachable: ${err.message}; the call was not run`,
      {
        store: "redis",
      },
    );
  }
}
