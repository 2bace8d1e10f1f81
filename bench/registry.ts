/**
 * The registry's cost per call: the protocol's `tools/call` of a registered
 * loopback tool service (test/fixtures/tool-service.mjs, `echo`), posted to
 * the service directly and through the broker's `POST /rpc`, which validates
 * the arguments, runs the policy chain and the breaker, and forwards the same
 * request over a kept-alive connection. Also the same function through
 * `POST /meta_call`. Sequential latency and 16-client throughput, in rounds
 * that visit the targets in turn, medians kept.
 */
import { fileURLToPath } from "node:url";
import { broker, freePort, startOnPort, stopChildren } from "./processes.js";
import { concurrent, median, sequential } from "./stats.js";

const ROUNDS = Number(process.env.BENCH_REGISTRY_ROUNDS ?? 5);
const SEQUENTIAL = Number(process.env.BENCH_REGISTRY_CALLS ?? 2000);
const CLIENTS = 16;
const PER_CLIENT = 250;

const SERVICE = fileURLToPath(new URL("../test/fixtures/tool-service.mjs", import.meta.url));

/** POSTs `body` and checks that the answer holds `expected` (a success, not an error). */
async function post(url: string, body: string, expected = '"result"'): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes(expected))
    throw new Error(`${url}: ${res.status} ${text}`);
}

async function main(): Promise<void> {
  const servicePort = await freePort();
  await startOnPort([SERVICE, "healthy", "--port", String(servicePort)], servicePort);
  const service = `http://127.0.0.1:${servicePort}/`;
  const { port } = await broker({ tree: [] });
  const rpcUrl = `http://127.0.0.1:${port}/rpc`;
  await post(
    rpcUrl,
    JSON.stringify({
      jsonrpc: "2.0",
      method: "tools/register",
      params: {
        tool: {
          name: "bench",
          endpoint: service,
          functions: [
            {
              name: "echo",
              parameters: {
                type: "object",
                properties: { message: { type: "string" } },
                required: ["message"],
              },
            },
          ],
        },
      },
      id: 1,
    }),
  );
  const call = JSON.stringify({
    jsonrpc: "2.0",
    method: "tools/call",
    params: {
      tool_name: "bench",
      function_name: "echo",
      arguments: { message: "hello" },
      call_id: "bench",
    },
    id: 2,
  });
  const targets = [
    { name: "the service directly (JSON-RPC tools/call)", call: () => post(service, call) },
    { name: "mcp-broker, POST /rpc (tools/call)", call: () => post(rpcUrl, call) },
    {
      name: "mcp-broker, POST /meta_call",
      call: () =>
        post(
          `http://127.0.0.1:${port}/meta_call`,
          JSON.stringify({ path: "/registry/bench/echo", args: { message: "hello" } }),
          '"is_error":false',
        ),
    },
  ];
  for (const t of targets) for (let i = 0; i < 300; i++) await t.call();
  const p50 = targets.map((): number[] => []);
  const p99 = targets.map((): number[] => []);
  const rate = targets.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, t] of targets.entries()) {
      const latency = await sequential(t.call, SEQUENTIAL);
      p50[i]!.push(latency.p50);
      p99[i]!.push(latency.p99);
      rate[i]!.push(
        await concurrent(
          Array.from({ length: CLIENTS }, () => t.call),
          PER_CLIENT,
        ),
      );
    }
  }
  const direct = { p50: median(p50[0]!), rate: median(rate[0]!) };
  const lines = [
    `Registry, ${ROUNDS} rounds of ${SEQUENTIAL} sequential calls and ${CLIENTS} clients × ${PER_CLIENT} calls, medians:`,
    "",
    "| path | p50 ms | p99 ms | calls/s (16 clients) | × direct |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...targets.map((t, i) => {
      const r = median(rate[i]!);
      return `| ${t.name} | ${median(p50[i]!).toFixed(3)} | ${median(p99[i]!).toFixed(3)} | ${r.toFixed(0)} | ${(r / direct.rate).toFixed(2)} |`;
    }),
    "",
    `Through /rpc against direct: p50 +${((median(p50[1]!) - direct.p50) * 1000).toFixed(0)} µs.`,
  ];
  console.log(lines.join("\n"));
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(stopChildren);
