/**
 * The policy chain's cost per call, measured alone: POST /meta_call of
 * server-everything's `echo` on two brokers, one with nothing configured (the
 * always-on links still run: audit, authorize, depth, validation, limits,
 * timeout, redaction) and ones with a bearer token and a rate-limit rule,
 * state in memory or in Redis (with a burst large enough for leased tokens,
 * and one small enough to be counted call by call; the latter also on a Redis
 * of the bench's own by its Unix socket), called without and with
 * a fresh Idempotency-Key on every call; beside them the floor of a call on
 * Redis (the memory store's call with a bare round trip, and keyed a bare
 * write, made by this client); then the same with 16 clients at once, for
 * throughput. Many short rounds that visit every broker in turn, each ratio
 * the median of the rounds' own ratios: the differences are a few tens of
 * microseconds, well inside a shared machine's drift over one long run.
 */
import { sha256, TokenBook } from "../src/auth/token-book.js";
import { compose, policyLinks } from "../src/policy/chain.js";
import type { RateLimitRule } from "../src/policy/admission/index.js";
import { MemoryStore } from "../src/state/memory.js";
import { context, textResult, toolCall } from "../test/helpers/requests.js";
import { cpuSeconds } from "./process-cpu.js";
import { ownRedis } from "../test/helpers/services.js";
import { broker, redisReachable, stopChildren } from "./processes.js";
import { BENCH_TOKEN, echoConfig, withPolicy } from "./echo-configs.js";
import { concurrent, median, percentile } from "./stats.js";
import { BareRedis } from "./bare-redis.js";

const ROUNDS = Number(process.env.BENCH_POLICY_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_POLICY_CALLS ?? 1000);
const THROUGHPUT_ROUNDS = Number(process.env.BENCH_POLICY_THROUGHPUT_ROUNDS ?? 5);

async function main(): Promise<void> {
  const off = await broker(echoConfig);
  const on = await broker(withPolicy("memory"));
  const redisUp = await redisReachable();
  const onRedis = redisUp ? await broker(withPolicy("redis://127.0.0.1:6379")) : undefined;
  const onRedisExact = redisUp
    ? await broker(withPolicy("redis://127.0.0.1:6379", 1000))
    : undefined;
  // The same calls to a Redis of the bench's own on this host, by its Unix socket.
  socketRedis = await ownRedis({ socket: true });
  const viaSocket = socketRedis
    ? await broker(withPolicy(`unix://${socketRedis.socket}`, 1000))
    : undefined;
  // The floor: the memory store's call with a bare Redis round trip before it (and, keyed, the
  // result written to Redis unawaited after it), made here, as no client library could do less.
  bare = redisUp ? await BareRedis.open(6379) : undefined;
  const body = JSON.stringify({ path: "/e/echo", args: { message: "hello" } });
  let key = 0;
  /**
   * With `policy`, the bench token; with `keyed`, a fresh Idempotency-Key too;
   * with `floor`, the bare Redis work a call on Redis cannot do without.
   */
  const call = async (port: number, policy: boolean, keyed: boolean, floor = false) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (policy) headers.authorization = `Bearer ${BENCH_TOKEN}`;
    // Unique across runs: Redis keeps keys for a day, and a repeat would not run the call.
    const idempotencyKey = `k-${process.pid}-${Date.now()}-${key++}`;
    if (keyed) headers["idempotency-key"] = idempotencyKey;
    if (floor) await bare!.roundTrip();
    const res = await fetch(`http://127.0.0.1:${port}/meta_call`, {
      method: "POST",
      headers,
      body,
    });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    const answer = await res.text();
    if (floor && keyed) bare!.handOff(`bench-floor:${idempotencyKey}`, answer);
  };
  const target = (
    label: string,
    b: { port: number; child: { pid?: number } },
    keyed: boolean,
    floor = false,
  ) => ({
    label,
    port: b.port,
    policy: label !== "nothing configured",
    keyed,
    floor,
    pid: b.child.pid!,
  });
  const targets = [
    target("nothing configured", off, false),
    target("token, rate limit (memory)", on, false),
    ...(onRedis ? [target("token, rate limit (Redis)", onRedis, false)] : []),
    ...(onRedisExact
      ? [target("token, rate limit of burst 1,000 (Redis)", onRedisExact, false)]
      : []),
    target("token, rate limit, idempotency key (memory)", on, true),
    ...(bare
      ? [
          target("floor: memory, and a bare Redis round trip", on, false, true),
          target(
            "floor: memory, idempotency key, a bare Redis round trip and write",
            on,
            true,
            true,
          ),
        ]
      : []),
    ...(onRedis ? [target("token, rate limit, idempotency key (Redis)", onRedis, true)] : []),
    ...(viaSocket
      ? [
          target("token, rate limit of burst 1,000 (Redis, Unix socket)", viaSocket, false),
          target(
            "token, rate limit of burst 1,000, idempotency key (Redis, Unix socket)",
            viaSocket,
            true,
          ),
        ]
      : []),
  ];
  for (const t of targets)
    for (let i = 0; i < 500; i++) await call(t.port, t.policy, t.keyed, t.floor);
  const p50s = targets.map((): number[] => []);
  const cpus = targets.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    // Every other round in reverse, so that no target always follows the same one.
    const order = [...targets.entries()];
    if (round % 2 === 1) order.reverse();
    for (const [i, t] of order) {
      const before = cpuSeconds(t.pid);
      const samples: number[] = [];
      for (let c = 0; c < CALLS; c++) {
        const started = performance.now();
        await call(t.port, t.policy, t.keyed, t.floor);
        samples.push(performance.now() - started);
      }
      cpus[i]!.push((cpuSeconds(t.pid) - before) / CALLS);
      p50s[i]!.push(
        percentile(
          samples.sort((a, b) => a - b),
          50,
        ),
      );
    }
  }
  // Throughput: 16 clients at once, each target in turn, a few rounds.
  const rates = targets.map((): number[] => []);
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      const clients = Array.from(
        { length: 16 },
        () => () => call(t.port, t.policy, t.keyed, t.floor),
      );
      rates[i]!.push(await concurrent(clients, 250));
    }
  }
  const p50 = Object.fromEntries(targets.map((t, i) => [t.label, median(p50s[i]!)]));
  const rate = Object.fromEntries(targets.map((t, i) => [t.label, median(rates[i]!)]));
  const cpu = Object.fromEntries(targets.map((t, i) => [t.label, median(cpus[i]!)]));
  const roundsOf = (label: string) => p50s[targets.findIndex((t) => t.label === label)];
  /** Paired: each round's p50 of `a` against the same round's of `b`, the median of those. */
  const against = (what: string, a: string, b: string) => {
    const [ofA, ofB] = [roundsOf(a), roundsOf(b)];
    if (ofA === undefined || ofB === undefined) return [];
    const ratio = median(ofA.map((v, round) => v / ofB[round]!));
    const extra = median(ofA.map((v, round) => v - ofB[round]!));
    return [
      `${what}: p50 ${ratio.toFixed(3)}× (${signed(extra * 1000)} µs), broker CPU ${(cpu[a]! / cpu[b]!).toFixed(3)}×, throughput ${(rate[a]! / rate[b]!).toFixed(3)}×.`,
    ];
  };
  console.log(
    [
      `Policy chain, ${ROUNDS} rounds of ${CALLS} sequential POST /meta_call per broker (every other round in reverse), then ${THROUGHPUT_ROUNDS} of 16 clients × 250 calls, medians; ratios paired by round:`,
      "",
      "| broker | p50 ms | broker CPU µs/call | calls/s (16 clients) |",
      "| --- | ---: | ---: | ---: |",
      ...targets.map(
        (t) =>
          `| ${t.label} | ${p50[t.label]!.toFixed(3)} | ${(cpu[t.label]! * 1e6).toFixed(0)} | ${rate[t.label]!.toFixed(0)} |`,
      ),
      "",
      ...against(
        "Policy on (with a key) against off",
        "token, rate limit, idempotency key (memory)",
        "nothing configured",
      ),
      ...(onRedis
        ? [
            ...against(
              "Redis against memory, no key (tokens leased a thousand at a time)",
              "token, rate limit (Redis)",
              "token, rate limit (memory)",
            ),
            ...against(
              "The floor of a round trip a call: memory and a bare Redis round trip against memory",
              "floor: memory, and a bare Redis round trip",
              "token, rate limit (memory)",
            ),
            ...against(
              "The floor of a keyed call: memory, a bare round trip and a bare write against memory",
              "floor: memory, idempotency key, a bare Redis round trip and write",
              "token, rate limit, idempotency key (memory)",
            ),
            ...against(
              "Redis against memory, no key, a burst of 1,000 (one round trip a call)",
              "token, rate limit of burst 1,000 (Redis)",
              "token, rate limit (memory)",
            ),
            ...against(
              "Redis against memory, with a key (one: the claim; the result handed to Redis before the answer, not awaited)",
              "token, rate limit, idempotency key (Redis)",
              "token, rate limit, idempotency key (memory)",
            ),
            ...against(
              "A keyed call on Redis against its floor",
              "token, rate limit, idempotency key (Redis)",
              "floor: memory, idempotency key, a bare Redis round trip and write",
            ),
          ]
        : ["Redis not reachable at 127.0.0.1:6379: no Redis rows."]),
      ...(viaSocket
        ? [
            ...against(
              "Redis by its Unix socket against memory, no key, a burst of 1,000",
              "token, rate limit of burst 1,000 (Redis, Unix socket)",
              "token, rate limit (memory)",
            ),
            ...against(
              "Redis by its Unix socket against memory, with a key",
              "token, rate limit of burst 1,000, idempotency key (Redis, Unix socket)",
              "token, rate limit, idempotency key (memory)",
            ),
            ...against(
              "A keyed call on Redis by its Unix socket against the floor (measured over TCP)",
              "token, rate limit of burst 1,000, idempotency key (Redis, Unix socket)",
              "floor: memory, idempotency key, a bare Redis round trip and write",
            ),
          ]
        : ["No redis-server to start on a Unix socket: no socket rows."]),
      "",
      await inProcess(),
    ].join("\n"),
  );
}

const signed = (n: number) => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(0)}`;

/**
 * The chain alone, in this process, around a source that answers at once:
 * what its links cost per call, without HTTP, a backend or a shared machine's
 * scheduling in the way.
 */
async function inProcess(): Promise<string> {
  const store = new MemoryStore();
  const chain = (rateLimits: RateLimitRule[]) =>
    compose(
      policyLinks({
        store,
        rateLimits,
        idempotencyTtlMs: 86_400_000,
        redactKeys: [],
        audit: () => undefined,
      }),
      async () => textResult("Echo: hello"),
    );
  const off = chain([]);
  const on = chain([{ token: "*", path: "/**", perMinute: 6e7, burst: 1e6 }]);
  const book = new TokenBook([
    { id: "b", sha256: sha256(BENCH_TOKEN).toString("hex"), scopes: ["*:/**"] },
  ]);
  let key = 0;
  const perCall = async (policy: boolean, n: number) => {
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const ctx = policy ? context({ idempotencyKey: `k-${key++}` }) : context();
      if (policy) book.authenticate(BENCH_TOKEN);
      await (policy ? on : off)(toolCall({ message: "hello" }, { ctx }));
    }
    return ((performance.now() - started) / n) * 1000;
  };
  const offUs: number[] = [];
  const onUs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    offUs.push(await perCall(false, 5000));
    onUs.push(await perCall(true, 5000));
  }
  await store.close();
  return `In process, the chain alone (token check, ${ROUNDS} rounds of 5000 calls, medians): ${median(offUs).toFixed(1)} µs a call with nothing configured, ${median(onUs).toFixed(1)} µs with a token, a rate limit and an idempotency key.`;
}

let socketRedis: Awaited<ReturnType<typeof ownRedis>>;
let bare: BareRedis | undefined;

main()
  .catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    socketRedis?.process.kill();
    bare?.close();
    stopChildren();
  });
