import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/state/open-store.js";
import { redisAddress } from "../../src/state/redis-address.js";
import { ownRedis } from "../helpers/services.js";
import { fuzzRuns } from "../helpers/fuzz.js";

describe("a Redis address", () => {
  it("passes redis:// and rediss:// URLs to ioredis as they are", () => {
    expect(redisAddress("redis://:pw@10.0.0.5:6380/2")).toEqual({
      url: "redis://:pw@10.0.0.5:6380/2",
    });
    expect(redisAddress("rediss://cache.example:6379")).toEqual({
      url: "rediss://cache.example:6379",
    });
  });

  it("reads a Unix socket's path, database and credentials", () => {
    expect(redisAddress("unix:///run/redis/redis.sock")).toEqual({ path: "/run/redis/redis.sock" });
    expect(
      redisAddress("unix:///tmp/my%20redis.sock?db=3&username=broker&password=s%26cret"),
    ).toEqual({
      path: "/tmp/my redis.sock",
      db: 3,
      username: "broker",
      password: "s&cret",
    });
  });

  it("refuses a socket address that names no path, or what a socket does not take", () => {
    expect(() => redisAddress("unix://redis-host/x.sock")).toThrow("names no socket on this host");
    expect(() => redisAddress("unix://")).toThrow("three slashes, an absolute path");
    expect(() => redisAddress("unix:///x.sock?db=first")).toThrow("db is a database number");
    expect(() => redisAddress("unix:///x#1.sock")).toThrow("write # in a path as %23");
    expect(() => redisAddress("unix:///x.sock?timeout=5")).toThrow(
      'unknown parameter "timeout"; a socket takes db, username and password',
    );
  });

  it("answers any unix: address with an address or an error in words that never shows its password", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ minLength: 6 }), (tail, secret) => {
        // A # in the middle is refused too; one at the start makes sure fast-check tries it.
        const rest = tail.startsWith("#") ? `/x${tail}` : tail;
        fc.pre(!rest.includes(secret));
        const spec = `unix:${rest}${rest.includes("?") ? "&" : "?"}password=${encodeURIComponent(secret)}&x=1`;
        try {
          redisAddress(spec);
        } catch (err) {
          expect(err).toBeInstanceOf(Error);
          expect((err as Error).constructor).toBe(Error);
          expect((err as Error).message).not.toContain(secret);
          expect((err as Error).message).not.toContain(encodeURIComponent(secret));
          return;
        }
        throw new Error(`accepted an unknown parameter: ${spec}`);
      }),
      { numRuns: fuzzRuns(2000) },
    );
  });
});

describe("a state store on a Redis's Unix socket", () => {
  it("keeps state and carries messages between the instances that share it", async () => {
    const redis = await ownRedis({ socket: true });
    if (!redis) return;
    const [a, b] = await Promise.all([
      openStore(`unix://${redis.socket}?db=2`),
      openStore(`unix://${redis.socket}?db=2`),
    ]);
    try {
      await a.set("shared", "from a", 60_000);
      expect(await b.get("shared")).toBe("from a");
      const heard = new Promise((resolve) => b.bus!.subscribe("news", resolve));
      // The subscription takes a connection of its own: publish until it is listening.
      const publishing = setInterval(() => void a.bus!.publish("news", "hello"), 20);
      expect(await heard).toBe("hello");
      clearInterval(publishing);
    } finally {
      await Promise.all([a.close(), b.close()]);
      redis.process.kill("SIGKILL");
    }
  });

  it("says at start-up that nothing listens on a socket path", async () => {
    await expect(openStore("unix:///nonexistent/redis.sock")).rejects.toMatchObject({
      kind: "unavailable",
      message: expect.stringContaining("state store (Redis) is unreachable"),
    });
  });
});
