import { createServer, connect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { digestOf } from "../../src/contract/digest.js";
import { admission } from "../../src/policy/admission/index.js";
import { MemoryStore } from "../../src/state/memory.js";
import { RedisStore } from "../../src/state/redis.js";
import type { Admission, Bucket, Claim } from "../../src/state/store.js";
import { keyed, textResult, toolCall } from "../helpers/requests.js";
import { redisAvailable } from "../helpers/services.js";
import { fuzzRuns } from "../helpers/fuzz.js";

const hasRedis = await redisAvailable();

/**
 * A loopback proxy to Redis that, when asked, cuts the connection instead of
 * passing on Redis's next answer: a command Redis ran whose answer was lost
 * with the connection, as a failover or a reset makes it.
 */
async function answerCuttingProxy(redisPort: number) {
  let cutNext = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(redisPort, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(upstream);
    upstream.on("data", (chunk: Buffer) => {
      if (!cutNext) {
        client.write(chunk);
        return;
      }
      cutNext = false;
      client.destroy();
      upstream.destroy();
    });
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cutNextAnswer: () => {
      cutNext = true;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe("a keyed call whose claim went through but whose answer was lost", () => {
  it.runIf(hasRedis)(
    "runs once, at once, when ioredis sends the claim again on its new connection",
    async () => {
      const proxy = await answerCuttingProxy(6379);
      const store = new RedisStore(
        `redis://127.0.0.1:${proxy.port}`,
        `mcp-broker-test:lost-answer:${Date.now().toString(36)}:`,
      );
      try {
        await store.ready();
        // The admission script is loaded first, so the next answer is the claim's own.
        await store.admit([{ key: "warm", perMinute: 60, burst: 10 }]);
        const link = admission(store, [], 60_000);
        let runs = 0;
        proxy.cutNextAnswer();
        const started = Date.now();
        const result = await link(toolCall({ a: 1 }, keyed("lost-1")), async () =>
          textResult(`run ${++runs}`),
        );
        expect(result).toEqual(textResult("run 1"));
        expect(runs).toBe(1);
        // Not held up by its own claim until the claim's 10 s lease ran out.
        expect(Date.now() - started).toBeLessThan(3000);
      } finally {
        await store.close();
        proxy.close();
      }
    },
    20_000,
  );
});

/** A store that runs every admission twice, answering the second: a claim sent again. */
class SendingTwice extends MemoryStore {
  override async admit(buckets: readonly Bucket[], claim?: Claim): Promise<Admission> {
    await super.admit(buckets, claim);
    return super.admit(buckets, claim);
  }
}

describe("a claim sent twice", () => {
  it("admits its own call and still refuses another with the same key (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.jsonValue(),
        fc.jsonValue(),
        async (key, args, otherArgs) => {
          const store = new SendingTwice();
          const link = admission(store, [], 60_000);
          let runs = 0;
          const next = async () => textResult(`run ${++runs}`);
          const first = await link(toolCall({ args }, keyed(key)), next);
          expect(first).toEqual(textResult("run 1"));
          // A repeat finds the stored result, and another payload is a conflict, as ever.
          expect(await link(toolCall({ args }, keyed(key)), next)).toEqual(first);
          if (digestOf({ args: otherArgs }) !== digestOf({ args })) {
            await expect(
              link(toolCall({ args: otherArgs }, keyed(key)), next),
            ).rejects.toMatchObject({ kind: "idempotency_conflict" });
          }
          expect(runs).toBe(1);
          await store.close();
        },
      ),
      { numRuns: fuzzRuns(50) },
    );
  });
});
