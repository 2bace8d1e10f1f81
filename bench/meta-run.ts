/**
 * What `meta_run` costs per inner call, beside the same calls made one by one
 * with `meta_call` over REST, in one run against one broker in front of
 * server-everything's `get-sum` (stdio): the broker process's own CPU
 * (microseconds per call, from /proc: the sandbox's worker threads are in it)
 * and the wall time per call. Also the cost of an empty script, the floor of
 * a run; and whether scripts starve other traffic: the latency of plain
 * `meta_call`s while sixteen scripts compute, or call tools, flat out.
 */
import { cpuSeconds } from "./process-cpu.js";
import { machineLine } from "./machine.js";
import { broker, stopChildren } from "./processes.js";
import { everythingCommand } from "../test/helpers/broker.js";

const CALLS_PER_RUN = 100;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

const { child, port } = await broker({
  registry: { predefined: false },
  tree: [
    {
      path: "/demo",
      source: { backend: "stdio", command: everythingCommand(), tool_filter: ["get-sum"] },
    },
  ],
});
const url = `http://127.0.0.1:${port}`;
const post = async (path: string, body: unknown, signal?: AbortSignal) => {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
};

/** Broker CPU µs and wall ms per unit of `work`, which does `units` of it. */
async function measure(units: number, work: () => Promise<void>) {
  const cpu0 = cpuSeconds(child.pid!);
  const t0 = performance.now();
  await work();
  const wall = performance.now() - t0;
  const cpu = cpuSeconds(child.pid!) - cpu0;
  return { cpuUs: (cpu * 1e6) / units, wallMs: wall / units };
}

const oneByOne = async () => {
  for (let i = 0; i < CALLS_PER_RUN; i++)
    await post("/meta_call", { path: "/demo/get-sum", args: { a: i, b: 1 } });
};
const sequentialScript = `let s = 0;
for (let i = 0; i < ${CALLS_PER_RUN}; i++) s += (await tools.demo["get-sum"]({ a: i, b: 1 })).length;
return s;`;
const parallelScript = `const all = [];
for (let i = 0; i < ${CALLS_PER_RUN}; i++) all.push(tools.demo["get-sum"]({ a: i, b: 1 }));
return (await Promise.all(all)).length;`;
const script = (code: string) => async () => {
  const answer = await post("/meta_run", { code });
  if (answer.error) throw new Error(JSON.stringify(answer.error));
};

// Warm up every path (the sandbox's workers start on first use).
await oneByOne();
await script(sequentialScript)();
await script(parallelScript)();

const rows: [string, { cpuUs: number; wallMs: number }][] = [];
const repeat = async (name: string, units: number, work: () => Promise<void>) => {
  const results = [];
  for (let r = 0; r < RUNS; r++) results.push(await measure(units, work));
  results.sort((a, b) => a.cpuUs - b.cpuUs);
  rows.push([name, results[Math.floor(results.length / 2)]!]);
};
// Interleaved in rounds, so a noisy moment falls on all of them alike.
await repeat("meta_call over REST, one by one (per call)", CALLS_PER_RUN, oneByOne);
await repeat(
  "meta_run, calls one after another (per inner call)",
  CALLS_PER_RUN,
  script(sequentialScript),
);
await repeat("meta_run, calls 8 at a time (per inner call)", CALLS_PER_RUN, script(parallelScript));
await repeat("meta_run, an empty script (per run)", 20, async () => {
  for (let i = 0; i < 20; i++) await script("return 1")();
});

console.log(machineLine());
console.log(
  `Median of ${RUNS} rounds of ${CALLS_PER_RUN} calls; broker process CPU (worker threads included).`,
);
console.log("");
console.log("| what | broker CPU µs | wall ms | CPU vs meta_call |");
console.log("| --- | ---: | ---: | ---: |");
const base = rows[0]![1].cpuUs;
for (const [name, { cpuUs, wallMs }] of rows)
  console.log(
    `| ${name} | ${cpuUs.toFixed(0)} | ${wallMs.toFixed(2)} | ${(cpuUs / base).toFixed(2)} |`,
  );

/** Latency of plain meta_calls, one after another, while `load` runs beside them. */
async function callLatency(load?: (signal: AbortSignal) => Promise<unknown>) {
  const stop = new AbortController();
  const loading = load?.(stop.signal).catch(() => undefined);
  // Time for the load to fill the sandbox's workers.
  if (load) await new Promise((resolve) => setTimeout(resolve, 500));
  const ms: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    await post("/meta_call", { path: "/demo/get-sum", args: { a: i, b: 1 } });
    ms.push(performance.now() - t0);
  }
  stop.abort();
  await loading;
  ms.sort((a, b) => a - b);
  return { p50: ms[150]!, p99: ms[297]! };
}
const sixteen = (each: (signal: AbortSignal) => Promise<unknown>) => (signal: AbortSignal) =>
  Promise.all(Array.from({ length: 16 }, () => each(signal)));
const starvation: [string, { p50: number; p99: number }][] = [
  ["nothing else", await callLatency()],
  [
    "16 scripts computing (`for (;;) {}`)",
    await callLatency(sixteen((signal) => post("/meta_run", { code: "for (;;) {}" }, signal))),
  ],
  [
    "16 clients calling get-sum with meta_call, one call after another (no scripts)",
    await callLatency(
      sixteen(async (signal) => {
        while (!signal.aborted)
          await post("/meta_call", { path: "/demo/get-sum", args: { a: 1, b: 1 } }, signal);
      }),
    ),
  ],
  [
    "16 scripts calling get-sum, one call after another",
    await callLatency(
      sixteen(async (signal) => {
        while (!signal.aborted) await post("/meta_run", { code: sequentialScript }, signal);
      }),
    ),
  ],
];
console.log("");
console.log("meta_call latency (300 calls one after another) beside scripts:");
console.log("");
console.log("| beside | p50 ms | p99 ms | p50 vs alone |");
console.log("| --- | ---: | ---: | ---: |");
for (const [name, { p50, p99 }] of starvation)
  console.log(
    `| ${name} | ${p50.toFixed(2)} | ${p99.toFixed(2)} | ${(p50 / starvation[0]![1].p50).toFixed(2)} |`,
  );
stopChildren();
