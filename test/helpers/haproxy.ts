import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { debianTool } from "./debian-tool.js";
import { freePort, redisAvailable } from "./services.js";

export interface LoadBalancer {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * HAProxy in front of `backends` (base URLs on loopback): round-robin per
 * request, no stickiness, `/healthz` checked every 200 ms (an instance that
 * is gone refuses at once; a busy one has 2 s to answer), and a request
 * whose connection fails sent to another instance. The config a user would
 * write, as docs/SEVERAL-INSTANCES.md shows it.
 */
export async function startHaproxy(program: string, backends: string[]): Promise<LoadBalancer> {
  const port = await freePort();
  const servers = backends
    .map((b, i) => `  server b${i} ${new URL(b).host} check inter 200 fall 1 rise 2`)
    .join("\n");
  const config = `global
  maxconn 4096

defaults
  mode http
  timeout connect 2s
  timeout check 2s
  timeout client 60s
  timeout server 60s
  retries 3
  option redispatch

frontend mcp
  bind 127.0.0.1:${port}
  default_backend brokers

backend brokers
  balance roundrobin
  option httpchk GET /healthz
${servers}
`;
  const file = join(mkdtempSync(join(tmpdir(), "haproxy-")), "haproxy.cfg");
  writeFileSync(file, config);
  const child = spawn(program, ["-f", file, "-db"], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${err}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (i > 100) throw new Error(`haproxy did not answer on ${url}: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/**
 * What a test of several instances behind HAProxy on Redis needs: HAProxy's
 * program, and why the test is skipped when either is missing ("" when none).
 */
export async function loadBalancedSetup(): Promise<{ haproxy: string | undefined; why: string }> {
  const haproxy = debianTool("haproxy", "haproxy");
  const why = !haproxy
    ? "skipped: haproxy is not installed (apt-get install -y haproxy; CI installs it)"
    : !(await redisAvailable())
      ? "skipped: Redis is not reachable at 127.0.0.1:6379"
      : "";
  return { haproxy, why };
}
