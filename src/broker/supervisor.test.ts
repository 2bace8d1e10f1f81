import type { CallToolResult, ServerCapabilities, Tool } from "@modelcontextprotocol/server";
import fc from "fast-check";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fuzzRuns } from "../../test/helpers/fuzz.js";
import { BrokerError } from "../contract/errors.js";
import type { Router } from "../contract/router.js";
import { Supervisor } from "./supervisor.js";

/** A source whose every start waits until the test lets it succeed or fail. */
class HeldSource implements Router {
  readonly name = "/held";
  starts = 0;
  private pending: PromiseWithResolvers<void> | undefined;
  private goDown: ((reason: string) => void) | undefined;

  start(): Promise<void> {
    this.starts += 1;
    this.pending = Promise.withResolvers<void>();
    return this.pending.promise;
  }
  /** Lets the start under way succeed. */
  comeUp(): void {
    this.pending?.resolve();
  }
  /** Lets the start under way fail with `message`. */
  failStart(message: string): void {
    this.pending?.reject(new BrokerError("unavailable", message));
  }
  down(reason: string): void {
    this.goDown?.(reason);
  }
  onDown(listener: (reason: string) => void): () => void {
    this.goDown = listener;
    return () => (this.goDown = undefined);
  }
  instructions(): string | undefined {
    return undefined;
  }
  capabilities(): ServerCapabilities {
    return { tools: {} };
  }
  listTools(): Promise<Tool[]> {
    return Promise.resolve([]);
  }
  callTool(): Promise<CallToolResult> {
    return Promise.resolve({ content: [] });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function supervised() {
  const source = new HeldSource();
  const supervisor = new Supervisor("/held", source, pino({ level: "silent" }), () => undefined);
  return { source, supervisor };
}

/** A supervisor whose first start succeeded. */
async function upAndRunning() {
  const held = supervised();
  const started = held.supervisor.start();
  held.source.comeUp();
  await started;
  return held;
}

/** Runs the timers until the supervisor's next start is under way. */
async function untilStartNumber(source: HeldSource, n: number): Promise<void> {
  while (source.starts < n) await vi.advanceTimersToNextTimerAsync();
}

const never = new AbortController().signal;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
});
afterEach(() => vi.useRealTimers());

describe("Supervisor.ready", () => {
  it("gives a source that is up at once, not as a promise", async () => {
    const { source, supervisor } = await upAndRunning();
    expect(supervisor.ready(never)).toBe(source);
  });

  it("holds a request made during the first start until the source is up", async () => {
    const { source, supervisor } = supervised();
    const started = supervisor.start();
    const waiting = supervisor.ready(never);
    expect(waiting).toBeInstanceOf(Promise);
    source.comeUp();
    await started;
    await expect(waiting).resolves.toBe(source);
  });

  it("holds a request made while the source is down until its restart brings it back", async () => {
    const { source, supervisor } = await upAndRunning();
    source.down("its process exited (signal SIGKILL)");
    const waiting = supervisor.ready(never);
    await untilStartNumber(source, 2);
    source.comeUp();
    await expect(waiting).resolves.toBe(source);
    expect(supervisor.status()).toMatchObject({ state: "up", restarts: 1 });
  });

  it("fails a waiting request with the failed start's error and when the next start is", async () => {
    const { source, supervisor } = await upAndRunning();
    source.down("its process exited (code 1)");
    const waiting = supervisor.ready(never);
    await untilStartNumber(source, 2);
    source.failStart("source /held could not start: it exited at once (code 4)");
    const error = await Promise.resolve(waiting).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(BrokerError);
    expect((error as BrokerError).kind).toBe("unavailable");
    expect((error as BrokerError).message).toMatch(
      /^source \/held failed to start \(attempt 1\) and is retried: source \/held could not start: it exited at once \(code 4\) \(next attempt in \d+ s\)$/,
    );
    expect((error as BrokerError).details?.retry_after_s).toBeGreaterThanOrEqual(1);
  });

  it("answers at once, with when to come back, once the next start is more than 5 s away", async () => {
    const { source, supervisor } = await upAndRunning();
    source.down("its process exited (code 1)");
    let refused: BrokerError | undefined;
    for (let n = 2; refused === undefined && n < 40; n++) {
      await untilStartNumber(source, n);
      source.failStart("source /held could not start");
      await vi.advanceTimersByTimeAsync(0);
      try {
        const waiting = supervisor.ready(never);
        // Still near: this request waits for the start, which fails like the others.
        void Promise.resolve(waiting).catch(() => undefined);
      } catch (err) {
        refused = err as BrokerError;
      }
    }
    expect(refused?.kind).toBe("unavailable");
    expect(Number(refused?.details?.retry_after_s)).toBeGreaterThan(5);
    expect(refused?.message).toMatch(/\(next attempt in \d+ s\)$/);
  });

  it("waits 5 s at most for a start under way, then says it is under way", async () => {
    const { source, supervisor } = await upAndRunning();
    source.down("the backend closed the connection");
    await untilStartNumber(source, 2);
    const waiting = Promise.resolve(supervisor.ready(never)).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(4_999);
    source.comeUp();
    await expect(waiting).resolves.toBe(source);

    source.down("the backend closed the connection");
    await untilStartNumber(source, 3);
    const late = Promise.resolve(supervisor.ready(never)).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await late).toMatchObject({
      kind: "unavailable",
      message:
        "source /held is down and being restarted: the backend closed the connection (a start is under way)",
    });
  });

  it("waits 5 s at most for a first start, then says it is still starting", async () => {
    const { supervisor } = supervised();
    void supervisor.start().catch(() => undefined);
    const waiting = Promise.resolve(supervisor.ready(never)).catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await waiting).toMatchObject({ message: "source /held is still starting" });
  });

  it("lets go of a request whose signal is aborted, with the signal's reason", async () => {
    const { source, supervisor } = supervised();
    const started = supervisor.start();
    const caller = new AbortController();
    const waiting = supervisor.ready(caller.signal);
    const deadline = new BrokerError("timeout", "/held/tool did not finish within its timeout");
    caller.abort(deadline);
    await expect(waiting).rejects.toBe(deadline);
    source.comeUp();
    await started;
    expect(supervisor.ready(never)).toBe(source);
  });

  it("refuses a request whose signal is already aborted", () => {
    const { supervisor } = supervised();
    void supervisor.start();
    expect(() => supervisor.ready(AbortSignal.abort(new Error("gone")))).toThrow("gone");
  });

  it("lets go of the requests that wait when the source is stopped", async () => {
    const { supervisor } = supervised();
    void supervisor.start().catch(() => undefined);
    const waiting = supervisor.ready(never);
    await supervisor.close();
    await expect(waiting).rejects.toThrow("source /held was stopped");
    expect(() => supervisor.ready(never)).toThrow("source /held was stopped");
  });

  it("settles every request within 5 s, whatever the source does meanwhile", async () => {
    const step = fc.oneof(
      fc.constant({ do: "request" as const }),
      fc.constant({ do: "abortable request" as const }),
      fc.constant({ do: "abort" as const }),
      fc.constant({ do: "come up" as const }),
      fc.constant({ do: "fail start" as const }),
      fc.constant({ do: "go down" as const }),
      fc.integer({ min: 0, max: 3_000 }).map((ms) => ({ do: "wait" as const, ms })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const { source, supervisor } = supervised();
        void supervisor.start().catch(() => undefined);
        const callers: AbortController[] = [];
        let asked = 0;
        const outcomes: { took: number; got: unknown }[] = [];
        const request = (signal: AbortSignal) => {
          asked += 1;
          const at = Date.now();
          const took = (got: unknown) => void outcomes.push({ took: Date.now() - at, got });
          try {
            Promise.resolve(supervisor.ready(signal)).then(took, took);
          } catch (err) {
            took(err);
          }
        };
        for (const s of steps) {
          if (s.do === "request") request(never);
          else if (s.do === "abortable request") {
            callers.push(new AbortController());
            request(callers.at(-1)!.signal);
          } else if (s.do === "abort") callers.shift()?.abort(new Error("caller gone"));
          else if (s.do === "come up") source.comeUp();
          else if (s.do === "fail start") source.failStart("source /held could not start");
          else if (s.do === "go down") source.down("the backend closed the connection");
          else await vi.advanceTimersByTimeAsync(s.ms);
          await vi.advanceTimersByTimeAsync(0);
        }
        await vi.advanceTimersByTimeAsync(5_000);
        expect(outcomes).toHaveLength(asked);
        for (const { took, got } of outcomes) {
          expect(took).toBeLessThanOrEqual(5_000);
          if (!(got instanceof Error)) expect(got).toBe(source);
          else if (got instanceof BrokerError) expect(got.kind).toBe("unavailable");
          else expect(got.message).toBe("caller gone");
        }
        await supervisor.close();
      }),
      { numRuns: fuzzRuns(100) },
    );
  });
});
