import { afterAll, describe, expect, it } from "vitest";
import { digestOf } from "../../contract/digest.js";
import { MemoryStore } from "../../state/memory.js";
import {
  answering,
  context,
  sourceRequest,
  textResult,
  toolCall,
} from "../../../test/helpers/requests.js";
import { idempotency } from "./index.js";

const store = new MemoryStore();
afterAll(() => store.close());
const keyed = (key: string) => ({ ctx: context({ idempotencyKey: key }) });

describe("idempotency", () => {
  it("runs a keyed call once and answers a repeat with the stored result", async () => {
    const link = idempotency(store, 60_000);
    let runs = 0;
    const next = async () => textResult(`run ${++runs}`);
    const first = await link(toolCall({ a: 1 }, keyed("k1")), next);
    const again = await link(toolCall({ a: 1 }, keyed("k1")), next);
    expect(again).toEqual(first);
    expect(runs).toBe(1);
  });

  it("refuses the same key with another payload as a conflict", async () => {
    const link = idempotency(store, 60_000);
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
    const link = idempotency(recording, 60_000, 300);
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

  it("runs a call whose claim's holder died, once its lease ran out", async () => {
    // What an instance killed mid-call leaves: a claim that nobody renews.
    const call = toolCall({ a: 1 }, keyed("lease-2"));
    const claim = { state: "running", payload: digestOf({ path: call.path, args: call.args }) };
    await store.set(`idem:${call.ctx.principal.id}:lease-2`, JSON.stringify(claim), 300);
    const started = Date.now();
    const next = answering(textResult("ran"));
    expect(await idempotency(store, 60_000, 300)(call, next)).toEqual(textResult("ran"));
    expect(next.reached).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("passes requests that are not tool calls untouched, key or not", async () => {
    const link = idempotency(store, 60_000);
    const next = answering({ contents: [] });
    for (let i = 0; i < 2; i++)
      await link(sourceRequest("resources/read", { uri: "x" }, keyed("k3")), next);
    expect(next.reached).toHaveLength(2);
  });
});
