import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { fixtureCommand, writeConfig } from "../helpers/broker.js";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { loadBalancedSetup, startHaproxy, type LoadBalancer } from "../helpers/haproxy.js";
import { textOf } from "../helpers/mcp-client.js";
import { REDIS_URL } from "../helpers/services.js";

const { haproxy, why } = await loadBalancedSetup();

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const instances: BrokerProcess[] = [];
let balancer: LoadBalancer | undefined;
afterAll(async () => {
  await balancer?.stop();
  await Promise.all(instances.map((b) => b.stop()));
});

/** What any client of either revision does: call a tool by path, with an idempotency key. */
type Call = (path: string, args: Record<string, unknown>, key?: string) => Promise<object>;

/**
 * A call whose answer never comes (its instance died with the stream open)
 * is given up after this, as a client with a deadline would, and retried.
 */
const CALL_TIMEOUT_MS = 5000;

/** meta_call of `path`, with the idempotency key in `_meta` where there is one. */
const metaCall = (path: string, args: Record<string, unknown>, key?: string) => ({
  name: "meta_call",
  arguments: { path, args },
  ...(key ? { _meta: { idempotencyKey: key } } : {}),
});

async function legacyClient(url: string): Promise<{ call: Call; close: () => Promise<void> }> {
  const client = new Client({ name: "lb-legacy", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return {
    call: (path, args, key) =>
      client.callTool(metaCall(path, args, key), undefined, { timeout: CALL_TIMEOUT_MS }),
    close: () => client.close(),
  };
}

async function modernClient(url: string): Promise<{ call: Call; close: () => Promise<void> }> {
  const client = new ModernClient(
    { name: "lb-modern", version: "2" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new ModernTransport(new URL(`${url}/mcp`)));
  return {
    call: (path, args, key) =>
      client.callTool(metaCall(path, args, key), { timeout: CALL_TIMEOUT_MS }),
    close: () => client.close(),
  };
}

/** Retries what failed because an instance died under it; the same key each time. */
async function withRetries<T>(attempt: () => Promise<T>, failures: { count: number }): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      failures.count += 1;
      if (tries >= 8) throw err;
      await new Promise((r) => setTimeout(r, 100 * tries));
    }
  }
}

describe(`three instances behind HAProxy, round-robin, sharing Redis ${why}`, () => {
  it.runIf(why === "")(
    "serves thousands of mixed calls from clients of both revisions while one instance is killed",
    async () => {
      const config = writeConfig({
        state: REDIS_URL,
        expose: "meta",
        registry: { predefined: false },
        sessions: { idle_timeout_s: 120 },
        tree: [
          {
            path: `/fx${run}`,
            source: { backend: "stdio", command: fixtureCommand(), tool_filter: ["pid", "count"] },
          },
        ],
      });
      instances.push(...(await Promise.all([0, 1, 2].map(() => spawnBroker(config)))));
      balancer = await startHaproxy(
        haproxy!,
        instances.map((b) => b.url),
      );

      const clients = [
        ...(await Promise.all([0, 1, 2, 3].map(() => legacyClient(balancer!.url)))),
        ...(await Promise.all([0, 1].map(() => modernClient(balancer!.url)))),
      ];
      const ROUNDS = 200;
      const failures = { count: 0 };
      const pids = new Set<string>();
      const pidsAfterKill = new Set<string>();
      let killed = false;
      let done = 0;

      const work = clients.map(async (client, c) => {
        for (let round = 0; round < ROUNDS; round++) {
          // Sent after the kill, not merely answered after it: an answer the killed instance
          // gave just before may be read by this client after another one killed it.
          const sentAfterKill = killed;
          const pid = textOf(await withRetries(() => client.call(`/fx${run}/pid`, {}), failures));
          pids.add(pid);
          if (sentAfterKill) pidsAfterKill.add(pid);
          // An idempotent call, and its repeat with the same key: one run, one answer.
          const key = `lb-${run}-${c}-${round}`;
          const first = textOf(
            await withRetries(() => client.call(`/fx${run}/count`, { n: round }, key), failures),
          );
          const again = textOf(
            await withRetries(() => client.call(`/fx${run}/count`, { n: round }, key), failures),
          );
          expect(again).toBe(first);
          done += 3;
          if (!killed && c === 0 && round === Math.floor(ROUNDS / 3)) {
            killed = true;
            instances[1]!.child.kill("SIGKILL");
          }
        }
      });
      await Promise.all(work);
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));

      expect(done).toBe(clients.length * ROUNDS * 3);
      // Every instance served calls before the kill; the two left served all after it.
      expect(pids.size).toBe(3);
      expect(pidsAfterKill.size).toBe(2);
      // Only what was in flight at the kill failed and was retried.
      expect(failures.count).toBeLessThan(40);
    },
    180_000,
  );

  it.runIf(why === "")(
    "counts a rate limit once for all three instances: exactly, or within 1% where tokens are leased",
    async () => {
      const limited = `/lim${run}`;
      const leased = `/lease${run}`;
      const pidTool = { backend: "stdio", command: fixtureCommand(), tool_filter: ["pid"] };
      const config = writeConfig({
        state: REDIS_URL,
        registry: { predefined: false },
        rate_limits: [
          { token: "*", path: `${limited}/pid`, per_minute: 1, burst: 150 },
          // A burst of 3,000: each instance takes its tokens three at a time.
          { token: "*", path: `${leased}/pid`, per_minute: 1, burst: 3000 },
        ],
        tree: [
          { path: limited, source: pidTool },
          { path: leased, source: pidTool },
        ],
      });
      const trio = await Promise.all([0, 1, 2].map(() => spawnBroker(config)));
      instances.push(...trio);
      const front = await startHaproxy(
        haproxy!,
        trio.map((b) => b.url),
      );
      const statuses = (path: string, count: number) =>
        Promise.all(
          Array.from({ length: count }, () =>
            fetch(`${front.url}/meta_call`, {
              method: "POST",
              body: JSON.stringify({ path }),
            }).then((r) => r.status),
          ),
        );
      try {
        const exact = await statuses(`${limited}/pid`, 600);
        expect(exact.filter((s) => s === 200)).toHaveLength(150);
        expect(exact.filter((s) => s === 429)).toHaveLength(450);

        const admitted: number[] = [];
        for (let wave = 0; wave < 11; wave++)
          admitted.push(...(await statuses(`${leased}/pid`, 300)));
        const ok = admitted.filter((s) => s === 200).length;
        expect(new Set(admitted)).toEqual(new Set([200, 429]));
        // Never above the burst; below it by at most what the instances hold unspent.
        expect(ok).toBeLessThanOrEqual(3000);
        expect(ok).toBeGreaterThanOrEqual(3000 - 3 * 2);
      } finally {
        await front.stop();
      }
    },
    90_000,
  );
});
