import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, writeConfig } from "../helpers/broker.js";
import { spawnBroker, type BrokerProcess } from "../helpers/broker-process.js";
import { loadBalancedSetup, startHaproxy, type LoadBalancer } from "../helpers/haproxy.js";
import { REDIS_URL } from "../helpers/services.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const { haproxy, why } = await loadBalancedSetup();

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const alice = token(`alice-${run}`, ["call:/**"]);
const bob = token(`bob-${run}`, ["approve:/**"]);
const fx = `/fx${run}`;
const instances: BrokerProcess[] = [];
let balancer: LoadBalancer | undefined;

beforeAll(async () => {
  if (why !== "") return;
  const config = writeConfig({
    state: REDIS_URL,
    auth: { tokens: configEntries(alice, bob) },
    registry: { predefined: false },
    approvals: { rules: [{ path: `${fx}/count` }], wait_s: 0 },
    tree: [{ path: fx, source: { backend: "stdio", command: fixtureCommand() } }],
  });
  instances.push(...(await Promise.all([0, 1, 2].map(() => spawnBroker(config)))));
  balancer = await startHaproxy(
    haproxy!,
    instances.map((b) => b.url),
  );
}, 60_000);
afterAll(async () => {
  await balancer?.stop();
  await Promise.all(instances.map((b) => b.stop()));
});

async function request(
  url: string,
  method: string,
  path: string,
  who: { bearer: string },
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, {
    method,
    headers: { ...bearer(who), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
const startTask = (url: string, path: string, args: Record<string, unknown>) =>
  request(url, "POST", "/meta_call", alice, { path, args }, { prefer: "respond-async" });
const TERMINAL = ["completed", "failed", "cancelled", "denied", "expired"];
/**
 * Reads the task at `url` until `done` holds of it, or it is finished (its
 * state is then the test's to check): each read is an instance's answer. A
 * read whose kept-alive connection the balancer closes (it does so, rather
 * than answer, when the instance behind that connection has just died) is
 * read again, as is a 502 or 503 from it, as any client following a task
 * would.
 */
async function until(url: string, id: string, done: (task: any) => boolean): Promise<any> {
  for (;;) {
    const task = await fetch(`${url}/tasks/${id}`, { headers: bearer(alice) }).then(
      async (res) => (res.status >= 502 ? undefined : ((await res.json()) as { task?: any }).task),
      (e: Error) => {
        if ((e.cause as { code?: string } | undefined)?.code !== "UND_ERR_SOCKET") throw e;
      },
    );
    if (task && (done(task) || TERMINAL.includes(task.status))) return task;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const toolText = async (url: string, path: string): Promise<string> =>
  (await request(url, "POST", "/meta_call", alice, { path })).body.output.content[0].text;

describe(`tasks on three instances behind HAProxy, sharing Redis ${why}`, () => {
  it.runIf(why === "")("any instance answers for a task another ran, result included", async () => {
    const [, b] = instances;
    const started = await startTask(b!.url, `${fx}/sleep`, { ms: 300 });
    expect(started.status).toBe(202);
    const done = await until(balancer!.url, started.body.task.id, (t) => t.status !== "working");
    expect(done).toMatchObject({ status: "completed", result: { path: `${fx}/sleep` } });
    expect(done.result.output.content[0].text).toBe("slept 300");
  });

  it.runIf(why === "")(
    "a cancellation asked of any instance reaches the backend of the one that runs it",
    async () => {
      const [, b, c] = instances;
      const before = Number(await toolText(b!.url, `${fx}/cancelled_count`));
      const started = await startTask(b!.url, `${fx}/sleep`, { ms: 60_000 });
      while ((await toolText(b!.url, `${fx}/sleeping`)) === "0");
      const cancelled = await request(c!.url, "DELETE", `/tasks/${started.body.task.id}`, alice);
      expect(cancelled.body.task.status).toBe("cancelled");
      while (Number(await toolText(b!.url, `${fx}/cancelled_count`)) === before);
      expect((await until(balancer!.url, started.body.task.id, () => true)).status).toBe(
        "cancelled",
      );
    },
  );

  it.runIf(why === "")(
    "an approval given on one instance runs the call once, and the caller gets it from another",
    async () => {
      const [, b, c] = instances;
      const asked = await request(c!.url, "POST", "/meta_call", alice, {
        path: `${fx}/count`,
        args: { note: run },
      });
      expect(asked.status).toBe(202);
      const approvals = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          request(i % 2 ? b!.url : c!.url, "POST", `/tasks/${asked.body.task.id}/approve`, bob),
        ),
      );
      expect(approvals.filter((a) => a.status === 200)).toHaveLength(1);
      const done = await until(balancer!.url, asked.body.task.id, () => false);
      expect(done).toMatchObject({
        status: "completed",
        result: { output: { content: [{ text: "1" }] } },
      });
      const repeat = await request(balancer!.url, "POST", "/meta_call", alice, {
        path: `${fx}/count`,
        args: { note: run },
      });
      expect(repeat.status).toBe(200);
      expect(repeat.body.output.content[0].text).toBe("1");
    },
  );

  it.runIf(why === "")(
    "a task whose instance died reads failed, from the others; one another runs survives it",
    async () => {
      const [a, b] = instances;
      const elsewhere = await startTask(b!.url, `${fx}/sleep`, { ms: 1500 });
      const started = await startTask(a!.url, `${fx}/sleep`, { ms: 60_000 });
      expect(
        (await request(b!.url, "GET", `/tasks/${started.body.task.id}`, alice)).body.task,
      ).toMatchObject({ status: "working" });
      a!.child.kill("SIGKILL");
      const failed = await until(
        balancer!.url,
        started.body.task.id,
        (t) => t.status !== "working",
      );
      expect(failed.status).toBe("failed");
      expect(failed.error.message).toContain("stopped before it finished");
      const survived = await until(balancer!.url, elsewhere.body.task.id, () => false);
      expect(survived).toMatchObject({
        status: "completed",
        result: { output: { content: [{ text: "slept 1500" }] } },
      });
    },
    30_000,
  );
});
