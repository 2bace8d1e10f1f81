import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const alice = token("alice", ["call:/**", "tree:/**", "describe:/**"]);
const bob = token("bob", ["call:/**", "tree:/**", "approve:/fx/**"]);
const carol = token("carol", ["call:/**", "tree:/**"]);
const admin = token("root", ["admin:/**", "tree:/**"]);

const config = {
  auth: { tokens: configEntries(alice, bob, carol, admin) },
  tasks: { ttl_s: 600, max_running_per_caller: 3 },
  approvals: {
    rules: [{ path: "/fx/count" }, { path: "/fx/pid", ttl_s: 0.3 }],
    wait_s: 0,
  },
  tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
};
let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker(config);
});
afterAll(() => broker?.close());

const asyncCall = { prefer: "respond-async" };
async function get(path: string, who: { bearer: string }): Promise<{ status: number; body: any }> {
  const res = await fetch(broker.url + path, { headers: bearer(who) });
  return { status: res.status, body: await res.json() };
}
async function send(
  method: string,
  path: string,
  who: { bearer: string },
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(broker.url + path, {
    method,
    headers: { ...bearer(who), "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
/** Reads the task until `done` holds of it: each read is the broker's answer, not a clock. */
async function until(id: string, who: { bearer: string }, done: (task: any) => boolean) {
  for (;;) {
    const { body } = await get(`/tasks/${id}`, who);
    if (done(body.task)) return body.task;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
const text = (task: any) => task.result.output.content[0].text;

describe("a call as a task over REST", () => {
  it("answers 202 with the task and where it is, and the result as meta_call gives it", async () => {
    const res = await fetch(`${broker.url}/meta_call`, {
      method: "POST",
      headers: { ...bearer(alice), ...asyncCall },
      body: JSON.stringify({ path: "/fx/sleep", args: { ms: 200 } }),
    });
    expect(res.status).toBe(202);
    expect(res.headers.get("preference-applied")).toBe("respond-async");
    const { task } = (await res.json()) as any;
    expect(res.headers.get("location")).toBe(`/tasks/${task.id}`);
    expect(task).toMatchObject({ status: "working", path: "/fx/sleep", caller: "alice" });
    expect(Date.parse(task.created_at)).not.toBeNaN();

    const done = await until(task.id, alice, (t) => t.status !== "working");
    const direct = await broker.post(
      "/meta_call",
      { path: "/fx/sleep", args: { ms: 200 } },
      bearer(alice),
    );
    expect(done.status).toBe("completed");
    expect(done.result).toEqual(direct.body);
  });

  it("is another token's business: not found to them, visible to an admin", async () => {
    const { body } = await send("POST", "/meta_call", alice, {
      path: "/fx/sleep",
      args: { ms: 1 },
    });
    expect(body.path).toBe("/fx/sleep");
    const started = await fetch(`${broker.url}/meta_call`, {
      method: "POST",
      headers: { ...bearer(alice), ...asyncCall },
      body: JSON.stringify({ path: "/fx/sleep", args: { ms: 50 } }),
    }).then((r) => r.json() as Promise<any>);
    expect((await get(`/tasks/${started.task.id}`, carol)).status).toBe(404);
    expect((await send("DELETE", `/tasks/${started.task.id}`, carol)).status).toBe(404);
    expect((await get(`/tasks/${started.task.id}`, admin)).status).toBe(200);
    expect((await get("/tasks/no-such-task", alice)).status).toBe(404);
  });

  it("DELETE cancels it, and the cancellation reaches the backend", async () => {
    const before = Number(
      (await broker.post("/meta_call", { path: "/fx/cancelled_count" }, bearer(alice))).body.output
        .content[0].text,
    );
    const started = await fetch(`${broker.url}/meta_call`, {
      method: "POST",
      headers: { ...bearer(alice), ...asyncCall },
      body: JSON.stringify({ path: "/fx/sleep", args: { ms: 60_000 } }),
    }).then((r) => r.json() as Promise<any>);
    for (;;) {
      const sleeping = await broker.post("/meta_call", { path: "/fx/sleeping" }, bearer(alice));
      if (sleeping.body.output.content[0].text !== "0") break;
    }
    const cancelled = await send("DELETE", `/tasks/${started.task.id}`, alice);
    expect(cancelled.body.task.status).toBe("cancelled");
    for (;;) {
      const count = await broker.post("/meta_call", { path: "/fx/cancelled_count" }, bearer(alice));
      if (Number(count.body.output.content[0].text) > before) break;
    }
    // Cancelled stays cancelled: the aborted call's end does not overwrite it.
    expect((await get(`/tasks/${started.task.id}`, alice)).body.task.status).toBe("cancelled");
    expect((await send("DELETE", `/tasks/${started.task.id}`, alice)).body.task.status).toBe(
      "cancelled",
    );
  });

  it("bounds the tasks one token keeps running, and frees a place when one ends", async () => {
    const start = () =>
      fetch(`${broker.url}/meta_call`, {
        method: "POST",
        headers: { ...bearer(carol), ...asyncCall },
        body: JSON.stringify({ path: "/fx/sleep", args: { ms: 60_000 } }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const running = [await start(), await start(), await start()];
    expect(running.map((r) => r.status)).toEqual([202, 202, 202]);
    const refused = await start();
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain("tasks.max_running_per_caller");
    // Another token is not held back by carol's.
    const alices = await send("POST", "/meta_call", alice, { path: "/fx/sleep", args: { ms: 1 } });
    expect(alices.status).toBe(200);
    await send("DELETE", `/tasks/${running[0]!.body.task.id}`, carol);
    expect((await start()).status).toBe(202);
    for (const r of running.slice(1)) await send("DELETE", `/tasks/${r.body.task.id}`, carol);
  });
});

describe("approvals", () => {
  it("park a call until a person with approve approves it, run it once, and give it once", async () => {
    const asked = await send("POST", "/meta_call", alice, {
      path: "/fx/count",
      args: { note: "a" },
    });
    expect(asked.status).toBe(202);
    const id = asked.body.task.id;
    expect(asked.body.task).toMatchObject({ status: "awaiting_approval", caller: "alice" });

    const waiting = await get("/tasks?status=awaiting_approval", bob);
    expect(waiting.body.tasks.map((t: any) => t.id)).toContain(id);
    expect(waiting.body.tasks.find((t: any) => t.id === id).args).toEqual({ note: "a" });
    expect((await get("/tasks?status=awaiting_approval", carol)).body.tasks).toEqual([]);

    // Without the approve scope: a task one may not see is not there; one's own is refused.
    expect((await send("POST", `/tasks/${id}/approve`, carol)).status).toBe(404);
    const own = await send("POST", `/tasks/${id}/approve`, alice);
    expect(own.status).toBe(403);
    expect(own.body.error.message).toContain("approve:/fx/count");

    const approvals = await Promise.all(
      Array.from({ length: 20 }, () => send("POST", `/tasks/${id}/approve`, bob, { reason: "ok" })),
    );
    expect(approvals.filter((a) => a.status === 200)).toHaveLength(1);
    expect(approvals.filter((a) => a.status === 409)).toHaveLength(19);

    const done = await until(id, alice, (t) => t.status === "completed");
    expect(text(done)).toBe("1");
    expect(done.approval).toMatchObject({ decided_by: "bob", reason: "ok" });

    // The caller's repeat of the call is given the result, once; it did not run again.
    const repeat = await send("POST", "/meta_call", alice, {
      path: "/fx/count",
      args: { note: "a" },
    });
    expect(repeat.status).toBe(200);
    expect(repeat.body.output.content[0].text).toBe("1");
    // After that, the same call asks anew: an approval is never replayed.
    const again = await send("POST", "/meta_call", alice, {
      path: "/fx/count",
      args: { note: "a" },
    });
    expect(again.status).toBe(202);
    expect(again.body.task.id).not.toBe(id);
    // Another argument or another caller is another call, with its own approval.
    const other = await send("POST", "/meta_call", alice, {
      path: "/fx/count",
      args: { note: "b" },
    });
    expect(other.body.task.id).not.toBe(again.body.task.id);
    const carols = await send("POST", "/meta_call", carol, {
      path: "/fx/count",
      args: { note: "a" },
    });
    expect(carols.body.task.id).not.toBe(again.body.task.id);
    for (const t of [again, other, carols])
      await send("POST", `/tasks/${t.body.task.id}/deny`, bob);
  });

  it("a denial is told to the caller with its reason, and nothing runs", async () => {
    const asked = await send("POST", "/meta_call", carol, {
      path: "/fx/count",
      args: { note: "d" },
    });
    const denied = await send("POST", `/tasks/${asked.body.task.id}/deny`, bob, {
      reason: "not today",
    });
    expect(denied.body.task).toMatchObject({ status: "denied" });
    const repeat = await send("POST", "/meta_call", carol, {
      path: "/fx/count",
      args: { note: "d" },
    });
    expect(repeat.status).toBe(403);
    expect(repeat.body.error.message).toContain("not today");
    expect((await send("POST", `/tasks/${asked.body.task.id}/approve`, bob)).status).toBe(409);
  });

  it("an approver may not approve their own call", async () => {
    const asked = await send("POST", "/meta_call", bob, {
      path: "/fx/count",
      args: { note: "own" },
    });
    const self = await send("POST", `/tasks/${asked.body.task.id}/approve`, bob);
    expect(self.status).toBe(403);
    expect(self.body.error.message).toContain("self_approval");
  });

  it("an approval not given in time expires", async () => {
    const asked = await send("POST", "/meta_call", alice, { path: "/fx/pid" });
    const expired = await until(asked.body.task.id, alice, (t) => t.status !== "awaiting_approval");
    expect(expired.status).toBe("expired");
    expect((await send("POST", `/tasks/${asked.body.task.id}/approve`, bob)).status).toBe(409);
  });

  it("is bound to the policy: after a change of what decides the call, it needs asking anew", async () => {
    const asked = await send("POST", "/meta_call", alice, {
      path: "/fx/count",
      args: { note: "p" },
    });
    await broker.broker.reload(
      ConfigSchema.parse({
        ...config,
        rate_limits: [{ token: "*", path: "/fx/**", per_minute: 600 }],
      }),
    );
    try {
      const approved = await send("POST", `/tasks/${asked.body.task.id}/approve`, bob);
      expect(approved.status).toBe(409);
      expect(approved.body.error.message).toContain("changed since the approval was asked");
      expect((await get(`/tasks/${asked.body.task.id}`, alice)).body.task.status).toBe("failed");
    } finally {
      await broker.broker.reload(ConfigSchema.parse(config));
    }
  });

  it("takes no malformed decision or listing", async () => {
    expect((await get("/tasks?status=sleeping", alice)).status).toBe(400);
    const asked = await send("POST", "/meta_call", alice, {
      path: "/fx/count",
      args: { note: "m" },
    });
    const res = await fetch(`${broker.url}/tasks/${asked.body.task.id}/deny`, {
      method: "POST",
      headers: bearer(bob),
      body: "{not json",
    });
    expect(res.status).toBe(400);
    expect(
      (await send("POST", `/tasks/${asked.body.task.id}/deny`, bob, { reason: 7 })).status,
    ).toBe(400);
  });
});
