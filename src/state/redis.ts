import type { Redis } from "ioredis";
import { BrokerError } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import { BucketLeases } from "./bucket-leases.js";
import { connectRedis, redisAddress } from "./redis-address.js";
import { RedisBus } from "./redis-bus.js";
import { bucketTtlMs } from "./token-bucket.js";
import type { Admission, Bucket, Claim, StateStore } from "./store.js";

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

/** Delete-if-equal as one Lua script. */
const CAD = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

/** The scripts above, as ioredis defines them on the connection. */
interface ScriptedRedis extends Redis {
  admitCall(
    numberOfKeys: number,
    ...keysThenArgs: (string | number)[]
  ): Promise<(string | number)[]>;
  compareAndSetValue(key: string, ...args: (string | number)[]): Promise<number>;
  deleteValue(key: string, expected: string): Promise<number>;
}

/**
 * `admit` as one script: KEYS[1] is the claim's key (or an unused name),
 * KEYS[2..] the buckets'; ARGV holds now, the claim's value ("" for none)
 * and lease, then each bucket's tokens per millisecond, burst, TTL and how
 * many tokens to take (0: none, the instance holds one; more than 1: as
 * many as there are, up to that, for a lease). Answers the tokens taken
 * from each bucket. Buckets are JSON {tokens, at}, as the other stores keep them.
 */
const ADMIT = `
local now = tonumber(ARGV[1])
if ARGV[2] ~= '' then
  local held = redis.call('GET', KEYS[1])
  if held then return {'held', held} end
end
local left, took = {}, {'ok'}
for i = 2, #KEYS do
  local base = 4 + (i - 2) * 4
  local perMs, burst, want = tonumber(ARGV[base]), tonumber(ARGV[base + 1]), tonumber(ARGV[base + 3])
  took[i] = 0
  if want > 0 then
    local tokens, at = burst, now
    local raw = redis.call('GET', KEYS[i])
    if raw then
      local state = cjson.decode(raw)
      tokens, at = state.tokens, state.at
    end
    tokens = math.min(burst, tokens + math.max(0, now - at) * perMs)
    if tokens < 1 then
      return {'wait', tostring(i - 2), tostring(math.max(1, math.ceil((1 - tokens) / perMs / 1000)))}
    end
    took[i] = math.min(want, math.floor(tokens))
    left[i] = tokens - took[i]
  end
end
for i = 2, #KEYS do
  local base = 4 + (i - 2) * 4
  if left[i] then
    redis.call('SET', KEYS[i], cjson.encode({tokens = left[i], at = now}), 'PX', ARGV[base + 2])
  end
end
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return took`;

/** A claim's lease as Redis's PX takes it: whole milliseconds, at least one. */
const leaseOf = (claim: Claim) => Math.max(1, Math.round(claim.leaseMs));

/** How long Redis has to connect, or to answer a command, before it counts as unreachable. */
const ANSWER_MS = 2000;

/**
 * State in Redis, shared by every broker instance that points at it. Commands
 * fail at once while Redis is unreachable (no offline queue), so a call that
 * needs the store fails with `unavailable` instead of waiting or going on
 * without its guarantee. Rate-limit tokens are taken in leases (`BucketLeases`),
 * so that most calls under a large burst need no round trip at all.
 */
export class RedisStore implements StateStore {
  readonly kind = "redis";
  readonly bus: RedisBus;
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly leases = new BucketLeases();

  /**
   * `spec` is a `redis://`, `rediss://` or `unix:///path` address (`redisAddress`).
   * `log` hears why a command failed; the caller's error does not say (it would name the host).
   */
  constructor(
    spec: string,
    prefix = "mcp-broker:",
    private readonly log?: Logger,
  ) {
    const address = redisAddress(spec);
    this.prefix = prefix;
    this.redis = connectRedis(address, {
      keyPrefix: prefix,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: ANSWER_MS,
      // A Redis that takes commands and answers none (a stall, a partition without resets)
      // fails a call as one that refuses does, not at the call's own timeout.
      commandTimeout: ANSWER_MS,
      lazyConnect: false,
    });
    // Errors surface on the commands; this keeps them off the process's unhandled errors.
    this.redis.on("error", () => undefined);
    this.bus = new RedisBus(address, this.redis);
    // Sent once, then called by their SHA (EVALSHA): a call's script is not resent with it.
    this.redis.defineCommand("admitCall", { lua: ADMIT });
    this.redis.defineCommand("compareAndSetValue", { numberOfKeys: 1, lua: CAS });
    this.redis.defineCommand("deleteValue", { numberOfKeys: 1, lua: CAD });
  }

  /** Resolves once connected, or rejects with `unavailable` naming the store. */
  async ready(): Promise<void> {
    if (this.redis.status === "ready") return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new BrokerError(
              "unavailable",
              `the state store (Redis) is unreachable: no answer within ${ANSWER_MS / 1000} s`,
              { store: "redis" },
            ),
          ),
        ANSWER_MS,
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

  /**
   * Done when the command is in the kernel's socket buffer: ioredis writes it
   * before `set` returns, and a stream that holds nothing back has passed it
   * on. From there a killed broker cannot take it back (on loopback it is in
   * Redis's own socket by then). Redis's answer is awaited in the background,
   * a failure logged by `run`. A connection not ready, or backed up, waits
   * for the answer as `set` does.
   */
  handOff(key: string, value: string, ttlMs: number): Promise<void> {
    const open = this.redis.status === "ready" && this.redis.stream.writable;
    const written = this.set(key, value, ttlMs);
    if (!open || this.redis.stream.writableLength > 0) return written;
    written.catch(() => undefined);
    return Promise.resolve();
  }

  compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    ttlMs: number,
  ): Promise<boolean> {
    return this.run(async () => {
      const wrote = await (this.redis as ScriptedRedis).compareAndSetValue(
        key,
        expected === undefined ? "0" : "1",
        expected ?? "",
        value,
        Math.max(1, Math.round(ttlMs)),
      );
      return wrote === 1;
    });
  }

  delete(key: string, expected?: string): Promise<void> {
    return this.run(async () => {
      if (expected === undefined) await this.redis.del(key);
      else await (this.redis as ScriptedRedis).deleteValue(key, expected);
    });
  }

  /**
   * Buckets are spent from this instance's leases where it holds one (no
   * round trip); the rest, and any claim, in one script, or a claim with
   * nothing else to ask in one `SET NX` (the script only if it is held).
   */
  async admit(buckets: readonly Bucket[], claim?: Claim): Promise<Admission> {
    const taken = this.leases.take(buckets);
    if (claim === undefined && taken.every(Boolean)) return { admitted: true };
    const asked = buckets.map((bucket, i) => (taken[i] ? 0 : this.leases.ask(bucket)));
    let answer: (string | number)[] | undefined;
    try {
      answer = await this.run(async () => {
        if (claim !== undefined && asked.every((n) => n === 0)) {
          // Nothing but the claim to ask of Redis: a plain SET NX, a tenth of the script's time
          // in Redis. Only a claim found held goes on to the script, which reads what holds it.
          const set = await this.redis.set(claim.key, claim.value, "PX", leaseOf(claim), "NX");
          if (set === "OK") return ["ok", ...asked];
        }
        const args: (string | number)[] = [
          Date.now(),
          claim?.value ?? "",
          claim ? leaseOf(claim) : 1,
        ];
        buckets.forEach((bucket, i) =>
          args.push(bucket.perMinute / 60_000, bucket.burst, bucketTtlMs(bucket), asked[i]!),
        );
        const keys = [claim?.key ?? "admit:no-claim", ...buckets.map((b) => b.key)];
        return (this.redis as ScriptedRedis).admitCall(keys.length, ...keys, ...args);
      });
    } finally {
      const admitted = answer?.[0] === "ok";
      buckets.forEach((bucket, i) => {
        if (asked[i]! > 0)
          this.leases.settle(bucket, asked[i]!, admitted ? Number(answer![i + 1]) : 0);
      });
      if (!admitted) this.leases.refund(buckets, taken);
    }
    if (answer[0] === "held") return { admitted: false, held: String(answer[1]) };
    if (answer[0] === "wait")
      return { admitted: false, bucket: Number(answer[1]), waitS: Number(answer[2]) };
    return { admitted: true };
  }

  /**
   * By SCAN, which walks the whole key space in steps without blocking Redis;
   * its pattern is not given the connection's key prefix, so it is added here.
   */
  valuesUnder(prefix: string, max: number): Promise<string[]> {
    return this.run(async () => {
      const pattern = `${this.prefix}${prefix}`.replace(/[*?[\]\\]/g, "\\$&") + "*";
      const values: string[] = [];
      let cursor = "0";
      do {
        const [next, keys] = await this.redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
        cursor = next;
        const names = keys.slice(0, max - values.length).map((k) => k.slice(this.prefix.length));
        if (names.length === 0) continue;
        for (const value of await this.redis.mget(...names)) if (value !== null) values.push(value);
      } while (cursor !== "0" && values.length < max);
      return values;
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
      throw this.failed(err as Error);
    }
  }

  /** The caller's error for a failed command; why it failed goes to the log only. */
  private failed(err: Error): BrokerError {
    this.log?.warn({ err: err.message, store: "redis" }, "state store command failed");
    return new BrokerError(
      "unavailable",
      "the state store (Redis) is unreachable; the call was not run (the broker log says why)",
      { store: "redis" },
    );
  }
}
