import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { pino } from "pino";
import { BrokerError } from "../contract/errors.js";
import type { RegisteredTool } from "./catalog.js";
import { ServiceFailure } from "./service-failure.js";
import { BREAKER_RULES } from "./service-breaker.js";
import { ServiceRuntime } from "./service-runtime.js";
import { ToolDefinitionSchema, type DeclaredStatus } from "./tool-definition.js";
import type { HealthReport, ServiceCall, ToolService } from "./tool-service.js";

const INTERVAL_MS = 60_000;

/** A service in this process whose answers the test sets; counts what reaches it. */
class ScriptedService implements ToolService {
  up = true;
  healthy = true;
  refuse = false;
  calls = 0;
  checks = 0;
  /** When set, calls wait for it: a probe that is under way. */
  gate: Promise<void> | undefined;

  async call({ signal }: ServiceCall): Promise<unknown> {
    this.calls++;
    // Like a real service, it stops waiting when the call is given up.
    await new Promise<void>((resolve, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
      void (this.gate ?? Promise.resolve()).then(resolve);
    });
    if (this.refuse) throw new BrokerError("invalid_params", "search says: query is too vague");
    if (!this.up) throw new ServiceFailure("could not reach http://127.0.0.1:9: ECONNREFUSED");
    return { ok: true };
  }

  async check(): Promise<HealthReport> {
    this.checks++;
    if (!this.up) throw new ServiceFailure("could not reach http://127.0.0.1:9: ECONNREFUSED");
    return this.healthy
      ? { healthy: true, version: "2.0.0" }
      : { healthy: false, lastError: "index offline" };
  }
}

function registered(status: DeclaredStatus = "AVAILABLE"): RegisteredTool {
  return {
    toolId: "search_v1",
    version: 1,
    registeredAt: new Date().toISOString(),
    definition: ToolDefinitionSchema.parse({
      name: "search",
      endpoint: "http://127.0.0.1:9/",
      status,
      functions: [{ name: "web_search", parameters: { type: "object" } }],
    }),
  };
}

const options = () => ({
  signal: new AbortController().signal,
  deadline: Date.now() + 10_000,
  caller: "test",
});

describe("a registered service's breaker and health checks (fake clock)", () => {
  let service: ScriptedService;
  let runtime: ServiceRuntime;

  beforeEach(() => {
    vi.useFakeTimers();
    service = new ScriptedService();
    runtime = new ServiceRuntime(registered(), service, INTERVAL_MS, pino({ level: "silent" }));
  });
  afterEach(() => {
    runtime.close();
    vi.useRealTimers();
  });

  const call = () => runtime.call("web_search", {}, options());
  const failCalls = async (n: number) => {
    for (let i = 0; i < n; i++) await call().catch(() => undefined);
  };

  it("checks the service every interval", async () => {
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 3);
    expect(service.checks).toBe(3);
    expect(runtime.health()).toMatchObject({
      status: "AVAILABLE",
      breaker: "closed",
      healthy: true,
      version: "2.0.0",
    });
  });

  it("opens after three failed checks in a row, then fails calls at once, naming the service and the error", async () => {
    service.healthy = false;
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 2);
    expect(runtime.health().breaker).toBe("closed");
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(runtime.health()).toMatchObject({
      status: "UNAVAILABLE",
      breaker: "open",
      lastError: "index offline",
    });
    const before = service.calls;
    await expect(call()).rejects.toMatchObject({
      kind: "unavailable",
      message: expect.stringMatching(
        /tool service search is unavailable: its circuit breaker is open .*index offline/,
      ),
    });
    expect(service.calls).toBe(before);
  });

  it("opens after five failed calls in a row, not four", async () => {
    service.up = false;
    await failCalls(BREAKER_RULES.failedCalls - 1);
    expect(runtime.health().breaker).toBe("closed");
    await failCalls(1);
    expect(runtime.health().breaker).toBe("open");
    const reached = service.calls;
    await expect(call()).rejects.toMatchObject({ kind: "unavailable" });
    expect(service.calls).toBe(reached);
  });

  it("never opens for calls their callers gave up: a short timeout they chose, a disconnect", async () => {
    service.gate = new Promise(() => undefined);
    const giveUp = async (reason: unknown, callerTimeout: boolean) => {
      const controller = new AbortController();
      const calling = runtime.call(
        "web_search",
        {},
        { ...options(), signal: controller.signal, callerTimeout },
      );
      controller.abort(reason);
      await expect(calling).rejects.toBe(reason);
    };
    const theirs = new BrokerError(
      "timeout",
      "did not finish within the timeout asked for of 0.05 s",
    );
    for (let i = 0; i < BREAKER_RULES.failedCalls * 2; i++) {
      await giveUp(theirs, true);
      await giveUp(new BrokerError("unavailable", "the client went away"), false);
    }
    expect(runtime.health().breaker).toBe("closed");
    // The function's own timeout running out is the service's failure.
    const own = new BrokerError("timeout", "did not finish within its timeout of 30 s");
    for (let i = 0; i < BREAKER_RULES.failedCalls; i++) await giveUp(own, false);
    expect(runtime.health().breaker).toBe("open");
  });

  it("counts only failures in a row: a success starts the count again", async () => {
    service.up = false;
    await failCalls(4);
    service.up = true;
    await call();
    service.up = false;
    await failCalls(4);
    expect(runtime.health().breaker).toBe("closed");
  });

  it("does not count the caller's mistakes against the service", async () => {
    service.refuse = true;
    await failCalls(20);
    expect(runtime.health().breaker).toBe("closed");
  });

  it("lets one probe through after 30 s, and closes when it succeeds", async () => {
    service.up = false;
    await failCalls(5);
    service.up = true;
    await vi.advanceTimersByTimeAsync(BREAKER_RULES.coolDownMs - 1000);
    await expect(call()).rejects.toMatchObject({
      message: expect.stringContaining("the next attempt goes through in 1 s"),
    });
    await vi.advanceTimersByTimeAsync(1000);
    await expect(call()).resolves.toEqual({ ok: true, data: { ok: true } });
    expect(runtime.health()).toMatchObject({ breaker: "closed", status: "AVAILABLE" });
  });

  it("fails other calls at once while the probe is under way", async () => {
    service.up = false;
    await failCalls(5);
    await vi.advanceTimersByTimeAsync(BREAKER_RULES.coolDownMs);
    service.up = true;
    let release!: () => void;
    service.gate = new Promise((resolve) => (release = resolve));
    const probe = call();
    await vi.advanceTimersByTimeAsync(0);
    expect(runtime.health().breaker).toBe("half_open");
    await expect(call()).rejects.toMatchObject({ kind: "unavailable" });
    release();
    await expect(probe).resolves.toMatchObject({ ok: true });
  });

  it("doubles the cool-down each time the probe fails, up to five minutes", async () => {
    service.up = false;
    await failCalls(5);
    const coolDowns: number[] = [];
    for (let reopening = 0; reopening < 6; reopening++) {
      let waited = 0;
      // Step through time until the breaker lets a probe through (which fails and reopens it).
      while (true) {
        await vi.advanceTimersByTimeAsync(1000);
        waited += 1000;
        const reached = service.calls;
        await call().catch(() => undefined);
        if (service.calls > reached) break;
      }
      coolDowns.push(waited / 1000);
    }
    expect(coolDowns).toEqual([30, 60, 120, 240, 300, 300]);
  });

  it("reaches the service again after it comes back, through the probe", async () => {
    service.up = false;
    await vi.advanceTimersByTimeAsync(INTERVAL_MS * 3);
    expect(runtime.health().breaker).toBe("open");
    service.up = true;
    // The next periodic check is the probe.
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(runtime.health()).toMatchObject({ breaker: "closed", healthy: true });
  });
});

describe("declared status", () => {
  it("answers a MAINTENANCE tool's calls with unavailable, saying so, without reaching it or checking it", async () => {
    vi.useFakeTimers();
    const service = new ScriptedService();
    const runtime = new ServiceRuntime(
      registered("MAINTENANCE"),
      service,
      INTERVAL_MS,
      pino({ level: "silent" }),
    );
    try {
      await expect(runtime.call("web_search", {}, options())).rejects.toMatchObject({
        kind: "unavailable",
        message: expect.stringContaining("in maintenance"),
      });
      await vi.advanceTimersByTimeAsync(INTERVAL_MS * 2);
      expect(service.calls + service.checks).toBe(0);
      expect(runtime.health().status).toBe("MAINTENANCE");
    } finally {
      runtime.close();
      vi.useRealTimers();
    }
  });
});
