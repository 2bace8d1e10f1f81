/**
 * The policy chain's cost per call, measured alone: POST /meta_call of
 * server-everything's `echo` on two brokers, one with nothing configured (the
 * always-on links still run: audit, authorize, depth, validation, limits,
 * timeout, redaction) and one with a bearer token, a rate-limit rule and a
 * fresh Idempotency-Key on every call, state in memory. Many short rounds that
 * alternate between the two, medians kept: the difference is a few tens of
 * microseconds, well inside a shared machine's noise for one long run.
 */
import { sha256, TokenBook } from "../src/auth/token-book.js";
import { compose, policyLinks } from "../src/policy/chain.js";
import type { RateLimitRule } from "../src/policy/admission/index.js";
import { MemoryStore } from "../src/state/memory.js";
import { context, textResult, toolCall } from "../test/helpers/requests.js";
import { childPids, cpuSeconds } from "./process-cpu.js";
import { broker, redisReachable, stopChildren } from "./processes.js";
import { BENCH_TOKEN, echoConfig, withPolicy } from "./echo-configs.js";
import { median, percentile } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_POLICY_ROUNDS ?? 15);
const CALLS = Number(process.env.BENCH_POLICY_CALLS ?? 1000);

async function main(): Promise<void> {
  const off = await broker(echoConfig);
  const on = await broker(withPolicy("memory"));
  const redisUp = await redisReachable();
  const onRedis = redisUp ? await broker(withPolicy("redis://127.0.0.1:6379")) : undefined;
  const body = JSON.stringify({ path: "/e/echo", args: { message: "hello" } });
  let key = 0;
  const call = async (port: number, policy: boolean) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (policy) {
      headers.authorization = `Bearer ${BENCH_TOKEN}`;
      // Unique across runs: Redis keeps keys for a day, and a repeat would not run the call.
      headers["idempotency-key"] = `k-${process.pid}-${Date.now()}-${key++}`;
    }
    const res = await fetch(`http://127.0.0.1:${port}/meta_call`, {
      method: "POST",
      headers,
      body,
    });
    if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
    await res.text();
  };
  const targets = [
    { name: "off", port: off.port, policy: false, pid: off.child.pid! },
    { name: "on", port: on.port, policy: true, pid: on.child.pid! },
    ...(onRedis
      ? [{ name: "on, Redis", port: onRedis.port, policy: true, pid: onRedis.child.pid! }]
      : []),
  ];
  for (const t of targets) for (let i = 0; i < 500; i++) await call(t.port, t.policy);
  const p50s = targets.map((): number[] => []);
  const cpus = targets.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      const pids = [t.pid, ...childPids(t.pid)];
      const before = pids.map(cpuSeconds);
      const samples: number[] = [];
      for (let c = 0; c < CALLS; c++) {
        const started = performance.now();
        await call(t.port, t.policy);
        samples.push(performance.now() - started);
      }
      cpus[i]!.push((cpuSeconds(t.pid) - before[0]!) / CALLS);
      p50s[i]!.push(
        percentile(
          samples.sort((a, b) => a - b),
          50,
        ),
      );
    }
  }
  const [p50Off, p50On, p50Redis] = p50s.map(median) as [number, number, number?];
  const [cpuOff, cpuOn, cpuRedis] = cpus.map(median) as [number, number, number?];
  console.log(
    [
      `Policy chain, ${ROUNDS} alternating rounds of ${CALLS} sequential POST /meta_call, medians:`,
      "",
      "| broker | p50 ms | broker CPU µs/call |",
      "| --- | ---: | ---: |",
      `| nothing configured | ${p50Off.toFixed(3)} | ${(cpuOff * 1e6).toFixed(0)} |`,
      `| token, rate limit, idempotency key (memory) | ${p50On.toFixed(3)} | ${(cpuOn * 1e6).toFixed(0)} |`,
      ...(p50Redis === undefined
        ? []
        : [
            `| token, rate limit, idempotency key (Redis) | ${p50Redis.toFixed(3)} | ${(cpuRedis! * 1e6).toFixed(0)} |`,
          ]),
      "",
      `Policy on against off: p50 ${(p50On / p50Off).toFixed(3)}× (${signed((p50On - p50Off) * 1000)} µs), broker CPU ${(cpuOn / cpuOff).toFixed(3)}×.`,
      ...(p50Redis === undefined
        ? ["Redis not reachable at 127.0.0.1:6379: no Redis row."]
        : [
            `Redis against memory: p50 ${(p50Redis / p50On).toFixed(3)}× (${signed((p50Redis - p50On) * 1000)} µs), broker CPU ${(cpuRedis! / cpuOn).toFixed(3)}×.`,
          ]),
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

main()
  .catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopChildren);
