import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  everythingCommand,
  fixtureCommand,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";

let broker: TestBroker;
const pidOf = async () =>
  Number(
    (await broker.post("/meta_call", { path: "/fx/pid", args: {} })).body.output.content[0].text,
  );

beforeAll(async () => {
  broker = await startBroker({
    tree: [
      { path: "/fx", source: { backend: "stdio", command: fixtureCommand() } },
      {
        path: "/demo",
        source: { backend: "stdio", command: everythingCommand(), tool_filter: ["echo"] },
      },
    ],
  });
});
afterAll(() => broker?.close());

describe("supervision of stdio backends", () => {
  it("a killed backend: the next call is unavailable naming the source, others keep serving, then it is back", async () => {
    const pid = await pidOf();
    process.kill(pid, "SIGKILL");
    const down = await broker.post("/meta_call", { path: "/fx/pid", args: {} });
    expect(down.status).toBe(503);
    expect(down.body.error.kind).toBe("unavailable");
    expect(down.body.error.message).toContain("/fx");

    const echo = await broker.post("/meta_call", {
      path: "/demo/echo",
      args: { message: "unaffected" },
    });
    expect(echo.body.output.content[0].text).toBe("Echo: unaffected");

    await expect
      .poll(async () => (await broker.post("/meta_call", { path: "/fx/pid", args: {} })).status, {
        timeout: 10_000,
      })
      .toBe(200);
    expect(await pidOf()).not.toBe(pid);
    const health = (await (await fetch(`${broker.url}/healthz?details`)).json()) as any;
    expect(health.sources["/fx"]).toMatchObject({ up: true, restarts: 1 });
    expect(health.ok).toBe(true);
  });

  it("while a backend is down, /healthz says so with 503 and calls fail at once", async () => {
    await broker.post("/meta_call", { path: "/fx/crash", args: {} }).catch(() => undefined);
    await expect
      .poll(() => broker.broker.health().sources["/fx"]!.up, { timeout: 5000 })
      .toBe(false);
    const res = await fetch(`${broker.url}/healthz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as any).sources["/fx"].up).toBe(false);
    const started = Date.now();
    const call = await broker.post("/meta_call", { path: "/fx/pid", args: {} });
    expect(call.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(200);
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
