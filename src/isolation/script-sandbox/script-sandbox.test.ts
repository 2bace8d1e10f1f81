import fc from "fast-check";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import type { ScriptLimits } from "./protocol.js";
import { SCRIPT_GLOBALS } from "./prelude.js";
import { ScriptSandbox } from "./script-sandbox.js";
import { fuzzRuns } from "../../../test/helpers/fuzz.js";

const limits: ScriptLimits = {
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 256 * 1024,
  maxResultChars: 100_000,
  maxLogEntries: 20,
  maxLogChars: 2_000,
};
const sandbox = new ScriptSandbox({
  workers: 2,
  runsPerWorker: 8,
  maxWaitingPerCaller: 64,
  maxWaiting: 256,
  log: pino({ level: "silent" }),
});
afterAll(() => sandbox.close());

const echoing = async (op: string, json: string) =>
  JSON.stringify({ ok: true, value: { op, args: JSON.parse(json) } });
const run = (
  code: string,
  options: { ms?: number; signal?: AbortSignal; ask?: typeof echoing } = {},
) =>
  sandbox.run("tester", {
    code,
    limits,
    deadline: Date.now() + (options.ms ?? 5000),
    signal: options.signal ?? new AbortController().signal,
    ask: options.ask ?? echoing,
  });

const KINDS = ["script_error", "memory", "result_too_large", "interrupted"];

describe("the script sandbox", () => {
  it("returns any JSON value a script returns, as JSON", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const text = JSON.stringify(value);
        // Parsed inside: as an object literal, {"__proto__": …} would set a prototype, not a key.
        const outcome = await run(`return JSON.parse(${JSON.stringify(text)});`);
        expect(outcome).toMatchObject({ ok: true });
        if (outcome.ok) expect(JSON.parse(outcome.resultJson)).toEqual(JSON.parse(text));
      }),
      { numRuns: fuzzRuns(200) },
    );
  });

  it("answers any text as code with a result or a failure of a known kind, and keeps serving", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (code) => {
        const outcome = await run(code, { ms: 500 });
        if (!outcome.ok) expect(KINDS).toContain(outcome.kind);
      }),
      { numRuns: fuzzRuns(100) },
    );
    expect(await run("return 1 + 1")).toMatchObject({ ok: true, resultJson: "2" });
  });

  it("reads a result with the built-ins as they were, whatever the script replaced", async () => {
    const cases: [string, unknown][] = [
      [`JSON.stringify = () => "not json"; return [1]`, { ok: true, resultJson: "[1]" }],
      [`Promise.prototype.then = function () { return 5 }; return 2`, { resultJson: "2" }],
      [`return () => 1`, { ok: true, resultJson: "null" }],
      [`return { toJSON() { return undefined } }`, { ok: true, resultJson: "null" }],
      [`return 10n`, { ok: false, kind: "script_error", message: expect.stringMatching(/BigInt/) }],
      [`const a = {}; a.a = a; return a`, { ok: false, kind: "script_error" }],
    ];
    for (const [code, expected] of cases) expect(await run(code), code).toMatchObject(expected!);
  });

  it("names what a script has for a name it does not, and the one a typo likely meant", async () => {
    expect(await run(`return await serch("add")`)).toMatchObject({
      ok: false,
      kind: "script_error",
      message: "ReferenceError: 'serch' is not defined (did you mean search?)",
    });
    expect(await run(`return await callTool("/a", {})`)).toMatchObject({
      message:
        "ReferenceError: 'callTool' is not defined (besides the language a script has call, search, describe, tree, tools, and console)",
    });
    // What the message lists is what the prelude defines.
    const kinds = await run(
      `return [${SCRIPT_GLOBALS.map((name) => `typeof ${name}`).join(", ")}]`,
    );
    expect(kinds).toMatchObject({ ok: true });
    if (kinds.ok) expect(JSON.parse(kinds.resultJson)).not.toContain("undefined");
    // Other errors keep the engine's words.
    expect(await run(`return null.x`)).toMatchObject({
      message: "TypeError: cannot read property 'x' of null",
    });
  });

  it("passes arguments and answers through the host, and bounds the logs", async () => {
    const outcome = await run(
      `for (let i = 0; i < 50; i++) console.info("line", i);
       return await call("/a/b", { x: [1, "two"] }, { idempotency_key: "k" });`,
    );
    expect(outcome).toMatchObject({
      ok: true,
      resultJson: JSON.stringify({
        op: "call",
        args: { path: "/a/b", args: { x: [1, "two"] }, idempotency_key: "k" },
      }),
    });
    expect(outcome.logs).toHaveLength(21);
    expect(outcome.logs.at(-1)).toEqual({
      level: "warn",
      message: "30 more log entries were dropped",
    });
  });

  it("stops a computing script at its deadline, and the worker takes the next run", async () => {
    const outcome = await run("for (;;) {}", { ms: 300 });
    expect(outcome).toMatchObject({ ok: false, kind: "interrupted" });
    expect(await run("return 2")).toMatchObject({ ok: true, resultJson: "2" });
  });

  it("stops a script when its caller gives up, wherever it is", async () => {
    const computing = new AbortController();
    const spinning = run("for (;;) {}", { signal: computing.signal, ms: 60_000 });
    const waiting = new AbortController();
    let asked!: () => void;
    const inCall = new Promise<void>((resolve) => (asked = resolve));
    const parked = run("await call('/x', {})", {
      signal: waiting.signal,
      ms: 60_000,
      ask: () => {
        asked();
        return new Promise<string>(() => undefined);
      },
    });
    await inCall;
    computing.abort();
    waiting.abort();
    expect(await spinning).toMatchObject({ ok: false, kind: "interrupted" });
    expect(await parked).toMatchObject({ ok: false, kind: "interrupted" });
  });

  it("ends a run stopped before its worker is ready at once, and the worker starts on for the next", async () => {
    const warnings: string[] = [];
    const cold = new ScriptSandbox({
      workers: 1,
      runsPerWorker: 8,
      maxWaitingPerCaller: 8,
      maxWaiting: 8,
      log: pino({ level: "warn" }, { write: (line: string) => warnings.push(line) }),
    });
    try {
      let asks = 0;
      const request = {
        code: "return await call('/x', {})",
        limits,
        deadline: Date.now() + 60_000,
        ask: (op: string, json: string) => (asks++, echoing(op, json)),
      };
      const giveUp = new AbortController();
      const outcome = cold.run("tester", { ...request, signal: giveUp.signal });
      giveUp.abort();
      // Settled by the abort itself: a worker that was ready would have had to run and answer it first.
      const first = await Promise.race([
        outcome,
        new Promise((resolve) => setImmediate(resolve, "not yet")),
      ]);
      expect(first).toEqual({
        ok: false,
        kind: "interrupted",
        message: "the caller gave up",
        logs: [],
      });
      const next = await cold.run("tester", { ...request, signal: new AbortController().signal });
      expect(next).toMatchObject({ ok: true });
      // The stopped run was never handed to the worker: only the next one called.
      expect(asks).toBe(1);
      expect(warnings).toEqual([]);
    } finally {
      await cold.close();
    }
  });

  it("keeps the broker's thread free while every worker computes", async () => {
    let ended = false;
    const hogs = Promise.all(
      Array.from({ length: 16 }, () => run("for (;;) {}", { ms: 4000 })),
    ).then(() => (ended = true));
    // Work on this thread (what serves every other request) goes on meanwhile.
    for (let i = 0; i < 100; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    await hogs;
  });

  it("bounds a run's whole memory, not one allocation, however the script takes it", async () => {
    // Each allocation is far below the heap; together they pass it. QuickJS's own limit
    // alone let the first of these grow to 2 GiB.
    for (const bomb of [
      `const a = []; for (;;) a.push("y".repeat(1e5) + a.length);`,
      `let s = "x"; for (;;) { s = s + s; s = s.toUpperCase(); }`,
      `const a = []; for (;;) a.push(new Uint8Array(512 * 1024));`,
      `return JSON.stringify(Array(1e7).fill("abc"));`,
    ]) {
      const outcome = await run(bomb, { ms: 20_000 });
      expect(outcome, bomb).toMatchObject({ ok: false, kind: "memory" });
    }
    expect(await run("return [1, 2].map((x) => x * 2)")).toMatchObject({ resultJson: "[2,4]" });
  });

  it("ends a run whose memory is full when a call's answer arrives, and keeps serving", async () => {
    const big = async () => JSON.stringify({ ok: true, value: "z".repeat(4_000_000) });
    const outcome = await run(
      `const a = []; try { for (;;) a.push("y".repeat(1e5) + a.length); } catch {}
       a.length -= 2;
       return (await call("/big", {})).length;`,
      { ms: 20_000, ask: big },
    );
    expect(outcome).toMatchObject({ ok: false, kind: "memory" });
    expect(await run("return (await call('/big', {})).length", { ask: big })).toMatchObject({
      resultJson: "4000000",
    });
  });

  it("gives a run's memory back when it ends", async () => {
    const before = process.memoryUsage().rss;
    // Thirty-two runs that each fill a 32 MiB heap: 1.5 GiB if engines were kept.
    for (let i = 0; i < 4; i++)
      await Promise.all(
        Array.from({ length: 8 }, () =>
          run(`const a = []; for (;;) a.push(new Uint8Array(512 * 1024));`, { ms: 20_000 }),
        ),
      );
    expect(process.memoryUsage().rss - before).toBeLessThan(600 * 1024 * 1024);
  });
});
