import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Supervisor } from "../../src/broker/supervisor.js";
import {
  everythingCommand,
  fixtureCommand,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";

let broker: TestBroker;
const dir = mkdtempSync(join(tmpdir(), "mcp-broker-supervision-"));
/** While it exists, a start of /fx is held: the test lets go of it. */
const hold = join(dir, "hold");
/** A start of /fx fails while it is missing. */
const needed = join(dir, "needed");
writeFileSync(needed, "");
const pidOf = async () =>
  Number(
    (await broker.post("/meta_call", { path: "/fx/pid", args: {} })).body.output.content[0].text,
  );

beforeAll(async () => {
  broker = await startBroker({
    tree: [
      {
        path: "/fx",
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          env: { FIXTURE_HOLD_WHILE: hold, FIXTURE_NEEDS_FILE: needed },
        },
      },
      {
        path: "/demo",
        source: { backend: "stdio", command: everythingCommand(), tool_filter: ["echo"] },
      },
    ],
  });
});
afterAll(() => broker?.close());

/**
 * A call of /fx/pid, and a promise that settles once the broker holds it
 * waiting for /fx (its supervisor answered with a promise, not the source).
 */
function waitingCall() {
  const ready = vi.spyOn(Supervisor.prototype, "ready");
  const answer = fetch(`${broker.url}/meta_call`, {
    method: "POST",
    body: JSON.stringify({ path: "/fx/pid", args: {} }),
  }).then(async (res) => ({
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    body: (await res.json()) as any,
  }));
  const waiting = expect
    .poll(() => ready.mock.results.some((r) => r.value instanceof Promise))
    .toBe(true)
    .finally(() => ready.mockRestore());
  return { answer, waiting };
}

describe("supervision of stdio backends", () => {
  it("a call made while a killed backend restarts waits for it and is answered by the new process", async () => {
    const pid = await pidOf();
    writeFileSync(hold, "");
    process.kill(pid, "SIGKILL");
    await expect.poll(() => broker.broker.health().sources["/fx"]!.up).toBe(false);
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(503);

    const echo = await broker.post("/meta_call", {
      path: "/demo/echo",
      args: { message: "unaffected" },
    });
    expect(echo.body.output.content[0].text).toBe("Echo: unaffected");

    // The call waits 5 s at most: the start is let go as soon as the call is seen waiting.
    const pending = waitingCall();
    await pending.waiting;
    expect(broker.broker.health().sources["/fx"]!.up).toBe(false);
    rmSync(hold);
    const res = await pending.answer;
    expect(res.status).toBe(200);
    expect(Number(res.body.output.content[0].text)).not.toBe(pid);
    const health = (await (await fetch(`${broker.url}/healthz?details`)).json()) as any;
    expect(health.sources["/fx"]).toMatchObject({ up: true, restarts: 1 });
    expect(health.ok).toBe(true);
  });

  it("a call waiting for a restart that fails gets unavailable saying why, and when the next is", async () => {
    writeFileSync(hold, "");
    rmSync(needed);
    await broker.post("/meta_call", { path: "/fx/crash", args: {} }).catch(() => undefined);
    await expect.poll(() => broker.broker.health().sources["/fx"]!.up).toBe(false);

    const pending = waitingCall();
    await pending.waiting;
    rmSync(hold);
    const res = await pending.answer;
    expect(res.status).toBe(503);
    expect(res.body.error.kind).toBe("unavailable");
    expect(res.body.error.message).toMatch(
      /^source \/fx failed to start \(attempt 1\) and is retried: .*\(next attempt in \d+ s\)$/,
    );
    expect(Number(res.retryAfter)).toBeGreaterThanOrEqual(1);

    writeFileSync(needed, "");
    await expect
      .poll(() => broker.broker.health().sources["/fx"]!.up, { timeout: 10_000 })
      .toBe(true);
  });

  it("a call in flight when the backend dies gets unavailable, not a hang", async () => {
    const pid = await pidOf();
    const pending = broker.post("/meta_call", { path: "/fx/sleep", args: { ms: 10_000 } });
    await expect
      .poll(async () => (await broker.post("/meta_call", { path: "/fx/sleeping" })).body.output)
      .toMatchObject({ content: [{ text: "1" }] });
    process.kill(pid, "SIGKILL");
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.body.error.message).toContain("/fx");
    await expect
      .poll(() => broker.broker.health().sources["/fx"]!.up, { timeout: 10_000 })
      .toBe(true);
  });

  it("the tree keeps the leaves of a source while it restarts", async () => {
    const pid = await pidOf();
    process.kill(pid, "SIGKILL");
    const tree = await broker.post("/meta_tree", { path: "/fx" });
    expect(tree.body.children.map((c: any) => c.name)).toContain("pid");
    await expect
      .poll(() => broker.broker.health().sources["/fx"]!.up, { timeout: 10_000 })
      .toBe(true);
  });
});
