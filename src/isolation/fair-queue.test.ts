import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FairQueue } from "./fair-queue.js";

describe("FairQueue", () => {
  it("takes callers in turns, each caller's items in order", () => {
    const queue = new FairQueue<string>(10, 100);
    for (const item of ["a1", "a2", "a3"]) queue.push("a", item);
    queue.push("b", "b1");
    queue.push("c", "c1");
    queue.push("b", "b2");
    const taken = Array.from({ length: 6 }, () => queue.take()!.item);
    expect(taken).toEqual(["a1", "b1", "c1", "a2", "b2", "a3"]);
    expect(queue.take()).toBeUndefined();
    expect(queue.size).toBe(0);
  });

  it("skips callers that may not take more now, without losing their turn's items", () => {
    const queue = new FairQueue<string>(10, 100);
    queue.push("a", "a1");
    queue.push("b", "b1");
    expect(queue.take((caller) => caller !== "a")!.item).toBe("b1");
    expect(queue.take((caller) => caller !== "a")).toBeUndefined();
    expect(queue.take()!.item).toBe("a1");
  });

  it("refuses past a caller's bound and past the total bound", () => {
    const queue = new FairQueue<number>(2, 3);
    expect([queue.push("a", 1), queue.push("a", 2), queue.push("a", 3)]).toEqual([
      true,
      true,
      false,
    ]);
    expect([queue.push("b", 1), queue.push("c", 1)]).toEqual([true, false]);
    expect(queue.waitingFor("a")).toBe(2);
  });

  it("removes an item wherever it waits", () => {
    const queue = new FairQueue<string>(10, 100);
    queue.push("a", "a1");
    queue.push("a", "a2");
    expect(queue.remove("a", "a1")).toBe(true);
    expect(queue.remove("a", "a1")).toBe(false);
    expect(queue.take()!.item).toBe("a2");
    expect(queue.size).toBe(0);
  });

  it("never serves a caller twice while another waits, whatever the arrivals (fast-check)", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 60 }), (callers) => {
        const queue = new FairQueue<number>(100, 1000);
        callers.forEach((caller, i) => queue.push(caller, i));
        const order: { caller: string; item: number }[] = [];
        for (let next = queue.take(); next; next = queue.take()) order.push(next);
        expect(order.map((o) => o.item).sort((x, y) => x - y)).toEqual(callers.map((_, i) => i));
        // Between two items of one caller, every caller that still had items then got one.
        const left = new Map<string, number>();
        for (const c of callers) left.set(c, (left.get(c) ?? 0) + 1);
        const round = new Set<string>();
        for (const { caller } of order) {
          if (round.has(caller)) {
            for (const [other, n] of left) if (n > 0) expect(round.has(other)).toBe(true);
            round.clear();
          }
          round.add(caller);
          left.set(caller, left.get(caller)! - 1);
        }
      }),
    );
  });
});
