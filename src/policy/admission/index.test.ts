import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { digestOf } from "../../contract/digest.js";
import { MemoryStore } from "../../state/memory.js";
import {
  answering,
  context,
  keyed,
  sourceRequest,
  textResult,
  toolCall,
} from "../../../test/helpers/requests.js";
import { admission, UNKEPT_META } from "./index.js";
import { ResultQuota } from "./result-quota.js";

const store = new MemoryStore();
afterAll(() => store.close());

describe("admission: idempotency", () => {
  it("runs a keyed call once and answers a repeat with the stored result", async () => {
    const link = admission(store, [], 60_000);
    let runs = 0;
    const next = async () => textResult(`run ${++runs}`);
    const first = await link(toolCall({ a: 1 }, keyed("k1")), next);
    const again = await link(toolCall({ a: 1 }, keyed("k1")), next);
    expect(again).toEqual(first);
    expect(runs).toBe(1);
  });

  it("does not keep a result over the bound: the answer says so, a repeat is refused, never run", async () => {
    const quota = new ResultQuota({
      maxResultBytes: 100,
      maxBytesPerToken: 10_000,
      maxKeysPerToken: 10,
    });
    const link = admission(store, [], 60_000, undefined, quota);
    const next = answering(textResult("x".repeat(200)));
    let told: string | undefined;
    const call = toolCall(
      { a: 1 },
      { ctx: context({ idempotencyKey: "big-1", unkept: (w) => (told = w) }) },
    );
    const first = await link(call, next);
    expect(first._meta?.[UNKEPT_META]).toEqual({ kept: false, why: told });
    expect(told).toMatch(/^the result is \d+ bytes, over the 100 an idempotent result may have/);
    await expect(link(toolCall({ a: 1 }, keyed("big-1")), next)).rejects.toMatchObject({
      kind: "idempotency_conflict",
      message: expect.stringContaining("ran, and its result was not kept"),
    });
    expect(next.reached).toHaveLength(1);
  });

  it("keeps a token's results up to its share, each token its own", async () => {
    const quota = new ResultQuota({
      maxResultBytes: 1000,
      maxBytesPerToken: 10_000,
      maxKeysPerToken: 3,
    });
    const link = admission(store, [], 60_000, undefined, quota);
    const kept = async (token: string, key: string) => {
      const principal = { id: token, scopes: ["*:/**"] };
      const result = await link(
        toolCall({}, { ctx: context({ idempotencyKey: key, principal }) }),
        answering(textResult("small")),
      );
      return result._meta?.[UNKEPT_META] === undefined;
    };
    const a = [];
    for (let i = 0; i < 5; i++) a.push(await kept("quota-a", `qa-${i}`));
    expect(a).toEqual([true, true, true, false, false]);
    expect(await kept("quota-b", "qb-0")).toBe(true);
  });

  it("refuses the same key with another payload as a conflict", async () => {
    const link = admission(store, [], 60_000);
    await link(toolCall({ a: 1 }, keyed("k2")), answering(textResult("ok")));
    await expect(
      link(toolCall({ a: 2 }, keyed("k2")), answering(textResult("ok"))),
    ).rejects.toMatchObject({ kind: "idempotency_conflict" });
  });

  it("keeps a long call's claim alive: a repeat waits for its result instead of running it", async () => {
    // Every claim is a short lease, renewed while the call runs.
    const leases: number[] = [];
    const recording = Object.assign(Object.create(store) as MemoryStore, {
      compareAndSet: (key: string, expected: string | undefined, value: string, ttl: number) => {
        if (value.includes('"running"')) leases.push(ttl);
        return store.compareAndSet(key, expected, value, ttl);
      },
    });
    const link = admission(recording, [], 60_000, 300);
    let runs = 0;
    const slow = async () => {
      runs += 1;
      await new Promise((r) => setTimeout(r, 1000));
      return textResult("slow");
    };
    const first = link(toolCall({ a: 1 }, keyed("lease-1")), slow);
    await new Promise((r) => setTimeout(r, 50));
    const repeat = await link(toolCall({ a: 1 }, keyed("lease-1")), slow);
    expect(repeat).toEqual(await first);
    expect(runs).toBe(1);
    expect(leases.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...leases)).toBe(300);
  });

  it("stores a result before it answers: a caller that saw the answer finds it stored", async () => {
    // An instance may be killed the moment its answer has left: the store must have it by then.
    let stored: () => void = () => undefined;
    const slowWrites = Object.assign(Object.create(store) as MemoryStore, {
      handOff: (key: string, value: string, ttl: number) =>
        new Promise<void>((resolve) => {
          stored = () => void store.set(key, value, ttl).then(resolve);
        }),
    });
    let answered = false;
    const call = admission(
      slowWrites,
      [],
      60_000,
    )(toolCall({ a: 1 }, keyed("durable-1")), answering(textResult("ran"))).then(
      () => (answered = true),
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    stored();
    await call;
    const next = answering(textResult("again"));
    expect(
      await admission(store, [], 60_000)(toolCall({ a: 1 }, keyed("durable-1")), next),
    ).toEqual(textResult("ran"));
    expect(next.reached).toHaveLength(0);
  });

  it("runs a call whose claim's holder died, once its lease ran out", async () => {
    // What an instance killed mid-call leaves: a claim that nobody renews.
    const call = toolCall({ a: 1 }, keyed("lease-2"));
    const claim = { state: "running", payload: digestOf({ path: call.path, args: call.args }) };
    await store.set(`idem:${call.ctx.principal.id}:lease-2`, JSON.stringify(claim), 300);
    const started = Date.now();
    const next = answering(textResult("ran"));
    expect(await admission(store, [], 60_000, 300)(call, next)).toEqual(textResult("ran"));
    expect(next.reached).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("releases only its own claim when its call fails: a claim another call took since stays", async () => {
    // A call whose lease lapsed without renewal (its process stalled), taken over by a repeat.
    const stalled = Object.assign(Object.create(store) as MemoryStore, {
      compareAndSet: (key: string, expected: string | undefined, value: string, ttl: number) =>
        // Renewals (the running record for itself) never land; the first claim does.
        expected === value
          ? Promise.resolve(false)
          : store.compareAndSet(key, expected, value, ttl),
    });
    const call = () => toolCall({ a: 1 }, keyed("lease-3"));
    const stalledLink = admission(stalled, [], 60_000, 100);
    const link = admission(store, [], 60_000, 10_000);
    let runs = 0;
    let failFirst: (err: Error) => void = () => undefined;
    let finishRepeat: () => void = () => undefined;
    const first = stalledLink(call(), () => {
      runs += 1;
      return new Promise((_, reject) => (failFirst = reject));
    });
    await new Promise((r) => setTimeout(r, 150));
    const repeat = link(call(), () => {
      runs += 1;
      return new Promise((resolve) => (finishRepeat = () => resolve(textResult("repeat"))));
    });
    await new Promise((r) => setTimeout(r, 50));
    failFirst(new Error("the backend failed"));
    await expect(first).rejects.toThrow("the backend failed");
    // The repeat still holds the key: a third call waits for its result, it does not run.
    const third = link(call(), answering(textResult("third")));
    await new Promise((r) => setTimeout(r, 50));
    finishRepeat();
    expect(await repeat).toEqual(textResult("repeat"));
    expect(await third).toEqual(textResult("repeat"));
    expect(runs).toBe(2);
  });

  it("passes requests that are not tool calls untouched, key or not", async () => {
    const link = admission(store, [], 60_000);
    const next = answering({ contents: [] });
    for (let i = 0; i < 2; i++)
      await link(sourceRequest("resources/read", { uri: "x" }, keyed("k3")), next);
    expect(next.reached).toHaveLength(2);
  });
});

describe("admission: rate limits", () => {
  it("lets burst requests through, then refuses with the seconds to wait", async () => {
    const link = admission(
      store,
      [{ token: "*", path: "/src/**", perMinute: 6, burst: 2 }],
      60_000,
    );
    const next = answering(textResult("ok"));
    await link(toolCall(), next);
    await link(sourceRequest("resources/read", { uri: "x" }), next);
    await expect(link(toolCall(), next)).rejects.toMatchObject({
      kind: "rate_limited",
      details: { retry_after_s: 10, per_minute: 6, burst: 2, path: "/src/**" },
    });
    expect(next.reached).toHaveLength(2);
  });

  it("counts only the requests its token and path glob match", async () => {
    const link = admission(
      store,
      [{ token: "someone", path: "/**", perMinute: 1, burst: 1 }],
      60_000,
    );
    const next = answering(textResult("ok"));
    for (let i = 0; i < 5; i++) await link(toolCall(), next);
    expect(next.reached).toHaveLength(5);
  });
});

describe("admission: both at once", () => {
  // Each test its own store: buckets are named by rule index and path.
  let store = new MemoryStore();
  beforeEach(() => {
    store = new MemoryStore();
  });

  it("answers a repeat of a finished call without taking a token", async () => {
    const link = admission(store, [{ token: "*", path: "/**", perMinute: 1, burst: 1 }], 60_000);
    const next = answering(textResult("once"));
    const first = await link(toolCall({ a: 1 }, keyed("both-1")), next);
    expect(await link(toolCall({ a: 1 }, keyed("both-1")), next)).toEqual(first);
    expect(next.reached).toHaveLength(1);
    // The one token went to the first call: a new call is limited.
    await expect(link(toolCall({ a: 2 }, keyed("both-2")), next)).rejects.toMatchObject({
      kind: "rate_limited",
    });
  });

  it("claims nothing for a call it refuses for its rate, so a retry later runs it", async () => {
    const limited = admission(
      store,
      [{ token: "*", path: "/**", perMinute: 60, burst: 1 }],
      60_000,
    );
    const next = answering(textResult("ran"));
    await limited(toolCall({}, { ctx: context() }), next);
    await expect(limited(toolCall({ a: 1 }, keyed("both-3")), next)).rejects.toMatchObject({
      kind: "rate_limited",
    });
    expect(await store.get(`idem:${context().principal.id}:both-3`)).toBeUndefined();
  });

  it("takes a token from every matching bucket or from none", async () => {
    const link = admission(
      store,
      [
        { token: "*", path: "/**", perMinute: 60, burst: 5 },
        { token: "*", path: "/src/**", perMinute: 60, burst: 1 },
      ],
      60_000,
    );
    const next = answering(textResult("ok"));
    await link(toolCall({}, { path: "/src/tool" }), next);
    for (let i = 0; i < 3; i++) {
      await expect(link(toolCall({}, { path: "/src/tool" }), next)).rejects.toMatchObject({
        kind: "rate_limited",
      });
    }
    // Refused calls took nothing from the wider bucket: four of its five are left.
    for (let i = 0; i < 4; i++) await link(toolCall({}, { path: "/other/tool" }), next);
    await expect(link(toolCall({}, { path: "/other/tool" }), next)).rejects.toMatchObject({
      kind: "rate_limited",
    });
  });
});
