import { beforeAll, describe, expect, it } from "vitest";
import { loadEngine, type EngineFactory } from "./engine.js";
import { EnginePool } from "./engine-pool.js";

const HEAP = 32 * 1024 * 1024;
let make: EngineFactory;
let made = 0;
beforeAll(async () => {
  const factory = await loadEngine();
  make = (bytes) => {
    made++;
    return factory(bytes);
  };
});

/** Runs code in a fresh runtime of the engine, as a run does. */
function use(engine: Awaited<ReturnType<EngineFactory>>, code: string): void {
  const runtime = engine.newRuntime();
  const context = runtime.newContext();
  const result = context.evalCode(code);
  (result.error ?? result.value).dispose();
  context.dispose();
  runtime.dispose();
}

describe("the engine pool", () => {
  it("gives a caller back its own engine, never another caller's", async () => {
    const pool = new EnginePool(make, 8);
    const alices = await pool.take("alice", HEAP);
    use(alices, "[1, 2, 3].join()");
    pool.give("alice", HEAP, alices, true);
    const bobs = await pool.take("bob", HEAP);
    expect(bobs).not.toBe(alices);
    expect(await pool.take("alice", HEAP)).toBe(alices);
    // Another heap size is another engine: its memory's maximum is fixed.
    pool.give("alice", HEAP, alices, true);
    expect(await pool.take("alice", 2 * HEAP)).not.toBe(alices);
  });

  it("drops an engine that grew or trapped, and keeps at most its bound", async () => {
    const pool = new EnginePool(make, 2);
    const grown = await pool.take("carol", HEAP);
    use(grown, "const keep = []; for (let i = 0; i < 40; i++) keep.push(new Uint8Array(1 << 20));");
    pool.give("carol", HEAP, grown, true);
    expect(await pool.take("carol", HEAP)).not.toBe(grown);

    const trapped = await pool.take("dave", HEAP);
    pool.give("dave", HEAP, trapped, false);
    expect(await pool.take("dave", HEAP)).not.toBe(trapped);

    const [a, b, c] = await Promise.all(["a", "b", "c"].map((o) => pool.take(o, HEAP)));
    pool.give("a", HEAP, a!, true);
    pool.give("b", HEAP, b!, true);
    pool.give("c", HEAP, c!, true);
    // Two kept: the least recently given went.
    const before = made;
    expect(await pool.take("c", HEAP)).toBe(c);
    expect(await pool.take("b", HEAP)).toBe(b);
    expect(await pool.take("a", HEAP)).not.toBe(a);
    expect(made).toBe(before + 1);
  });
});
