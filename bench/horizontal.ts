/**
 * `npm run bench`, several instances: throughput of one, two and three
 * broker instances sharing Redis behind HAProxy (round-robin, no
 * stickiness), each with its own server-everything, measured side by side in
 * interleaved rounds; then the recovery after `kill -9` of one of three under
 * load. Needs Debian's haproxy and Redis on 127.0.0.1:6379; says so and stops
 * without them.
 */
import { spawnSync } from "node:child_process";
import { startHaproxy } from "../test/helpers/haproxy.js";
import { echoConfig } from "./echo-configs.js";
import { measureAll, CLIENTS, type Target } from "./measure.js";
import { childPids } from "./process-cpu.js";
import { broker, redisReachable, stopChildren } from "./processes.js";
import { rawToolCaller } from "./raw-mcp-client.js";

const haproxy = spawnSync("sh", ["-c", "command -v haproxy"], { encoding: "utf8" }).stdout.trim();
const shared = { ...echoConfig, state: "redis://127.0.0.1:6379" };
const args = { message: "hello" };

async function fleet(size: number) {
  const instances = await Promise.all(Array.from({ length: size }, () => broker(shared)));
  const balancer = await startHaproxy(
    haproxy,
    instances.map((i) => `http://127.0.0.1:${i.port}`),
  );
  const pids = () => instances.flatMap((i) => [i.child.pid!, ...childPids(i.child.pid!)]);
  return { instances, balancer, pids };
}

async function throughput(): Promise<void> {
  const fleets = [await fleet(1), await fleet(2), await fleet(3)];
  const single = fleets[0]!.instances[0]!;
  const targets: Target[] = [
    {
      name: "one instance, no balancer",
      makeCall: () => rawToolCaller(`http://127.0.0.1:${single.port}/mcp`, "e__echo", args),
      pids: fleets[0]!.pids,
    },
    ...fleets.map((f, i) => ({
      name: `${i + 1} instance${i ? "s" : ""} behind HAProxy`,
      makeCall: () => rawToolCaller(`${f.balancer.url}/mcp`, "e__echo", args),
      pids: f.pids,
    })),
  ];
  const rows = await measureAll(targets);
  console.log(
    `\n### Several instances behind HAProxy (raw Streamable HTTP client, ${CLIENTS} sessions, round-robin per request)\n`,
  );
  console.log(
    "| target | p50 ms | p99 ms | calls/s | × one instance behind HAProxy | CPU µs/call, all processes |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
  const base = rows[1]!.throughput;
  for (const row of rows) {
    const cpu = row.cpuUs.reduce((a, b) => a + b, 0);
    console.log(
      `| ${row.name} | ${row.p50.toFixed(3)} | ${row.p99.toFixed(3)} | ${Math.round(row.throughput)} | ${(row.throughput / base).toFixed(2)} | ${cpu.toFixed(0)} |`,
    );
  }
  for (const f of fleets) await f.balancer.stop();
  for (const f of fleets) for (const i of f.instances) i.child.kill("SIGTERM");
}

/** Sixteen clients calling without pause; one of three instances killed; how long until every call succeeds again. */
async function recovery(): Promise<void> {
  const { instances, balancer } = await fleet(3);
  const callers = await Promise.all(
    Array.from({ length: CLIENTS }, () => rawToolCaller(`${balancer.url}/mcp`, "e__echo", args)),
  );
  const failures: number[] = [];
  let calls = 0;
  let running = true;
  const loops = callers.map(async (call) => {
    while (running) {
      try {
        await call();
        calls += 1;
      } catch {
        failures.push(performance.now());
      }
    }
  });
  await new Promise((r) => setTimeout(r, 2000));
  const before = calls;
  const killedAt = performance.now();
  instances[1]!.child.kill("SIGKILL");
  await new Promise((r) => setTimeout(r, 4000));
  running = false;
  await Promise.all(loops);
  const after = failures.filter((t) => t >= killedAt);
  const lastFailure = after.length === 0 ? killedAt : Math.max(...after);
  console.log("\n### Recovery after kill -9 of one of three instances under load\n");
  console.log("| measure | value |\n| --- | --- |");
  console.log(`| calls in the 2 s before the kill | ${before} |`);
  console.log(
    `| failed calls after the kill (in flight on it, or sent before HAProxy marked it down) | ${after.length} |`,
  );
  console.log(
    `| from the kill to the last failed call | ${(lastFailure - killedAt).toFixed(0)} ms |`,
  );
  console.log(`| calls in the 4 s after the kill | ${calls - before} |`);
  await balancer.stop();
  for (const i of instances) i.child.kill("SIGTERM");
}

async function main(): Promise<void> {
  if (!haproxy)
    return console.log(
      "\nSeveral instances: skipped, haproxy is not installed (apt-get install -y haproxy).",
    );
  if (!(await redisReachable()))
    return console.log("\nSeveral instances: skipped, Redis is not reachable at 127.0.0.1:6379.");
  await throughput();
  await recovery();
}

main()
  .catch((err: Error) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopChildren);
