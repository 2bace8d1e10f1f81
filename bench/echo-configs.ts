/** The broker configs the benchmarks share: server-everything's `echo`, with and without policy. */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
export const everything = join(
  root,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);

/** The bearer token the policy config accepts. */
export const BENCH_TOKEN = "bench-token";

/** One server-everything process at /e, its `echo` only, every leaf a flat tool. */
export const echoConfig = {
  expose: "flat",
  tree: [
    {
      path: "/e",
      source: {
        backend: "stdio",
        command: [process.execPath, everything, "stdio"],
        tool_filter: ["echo"],
      },
    },
  ],
};

/**
 * The same broker with the policy that costs something per call: a token and
 * a rate limit never reached (the caller adds an idempotency key per call),
 * its state in `state`. A burst of 2,000 or more lets a Redis-backed broker
 * take its tokens in leases; under that it asks Redis on every call.
 */
export function withPolicy(state: string, burst = 1_000_000) {
  return {
    ...echoConfig,
    state,
    auth: {
      tokens: [
        {
          id: "bench",
          sha256: createHash("sha256").update(BENCH_TOKEN).digest("hex"),
          scopes: ["*:/**"],
        },
      ],
    },
    rate_limits: [{ token: "*", path: "/**", per_minute: 60_000_000, burst }],
  };
}
