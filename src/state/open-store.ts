import type { Logger } from "../contract/log.js";
import { MemoryStore } from "./memory.js";
import { SqliteStore } from "./sqlite.js";
import type { StateStore } from "./store.js";

/**
 * The store a config's `state` names: "memory", "sqlite:PATH", or a Redis by
 * its redis://, rediss:// or unix:/// URL. `log` hears the causes of a shared
 * store's failures.
 */
export async function openStore(spec: string, log?: Logger): Promise<StateStore> {
  if (spec === "memory") return new MemoryStore();
  if (spec.startsWith("sqlite:")) return new SqliteStore(spec.slice("sqlite:".length));
  if (/^(rediss?|unix):/.test(spec)) {
    // ioredis is loaded by a config that uses it only.
    const { RedisStore } = await import("./redis.js");
    const store = new RedisStore(spec, undefined, log);
    try {
      await store.ready();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }
  throw new Error(
    `state "${spec}" is not a store; write "memory", "sqlite:PATH", or a Redis's redis://, rediss:// or unix:/// URL`,
  );
}
