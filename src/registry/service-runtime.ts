import { randomUUID } from "node:crypto";
import { ExponentialBackoff, handleWhen, retry } from "cockatiel";
import { BrokerError } from "../contract/errors.js";
import type { Logger } from "../contract/log.js";
import { nameMeant } from "../contract/did-you-mean.js";
import type { RegisteredTool } from "./catalog.js";
import { AddressRefused, NotReached } from "../net/guarded-request.js";
import {
  BreakerOpen,
  CallAbandoned,
  CheckFailure,
  ServiceBreaker,
  type BreakerState,
} from "./service-breaker.js";
import type { DeclaredStatus, FunctionDefinition } from "./tool-definition.js";
import { ExecutionFailure, type ExecutionError, type ToolService } from "./tool-service.js";

/** How long a health check may take before it counts as failed. */
const CHECK_TIMEOUT_MS = 5_000;
/**
 * A check that ended less than this long ago answers for a new one: callers
 * asking at once (a batch of a thousand `health/check`s) cost the service
 * one request, not a thousand.
 */
const CHECK_REUSE_MS = 1_000;

export type ToolStatus = DeclaredStatus;

/** A tool's health as `tools/list`, `health/check`, `/healthz` and `/metrics` show it. */
export interface ToolHealth {
  readonly status: ToolStatus;
  readonly breaker: BreakerState;
  /** ISO time of the last health check, if one ran. */
  readonly lastCheckAt?: string | undefined;
  readonly healthy?: boolean | undefined;
  readonly responseTimeMs?: number | undefined;
  readonly version?: string | undefined;
  readonly lastError?: string | undefined;
}

/** What a health check found, with its timing. */
export interface CheckResult extends ToolHealth {
  readonly capabilities: string[];
}

export type CallOutcome =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly error: ExecutionError };

export interface CallOptions {
  readonly callId?: string | undefined;
  /** The principal's id, for services that take callers in turns. */
  readonly caller: string;
  /** The deadline is one the caller chose (the registry's `timeout`), not the function's own. */
  readonly callerTimeout?: boolean | undefined;
  readonly signal: AbortSignal;
  readonly deadline: number;
}

/**
 * A registered tool at work in this instance: its service, its circuit
 * breaker and its periodic health check. The registration says what the tool
 * is; this says how it is doing here (each instance watches for itself).
 */
export class ServiceRuntime {
  private readonly breaker: ServiceBreaker;
  private readonly timer: NodeJS.Timeout;
  private last: Omit<ToolHealth, "status" | "breaker"> = {};
  private closed = false;
  /** The check under way, which every caller meanwhile shares. */
  private checking: Promise<CheckResult> | undefined;
  private checkedAt = 0;

  constructor(
    readonly tool: RegisteredTool,
    private readonly service: ToolService,
    intervalMs: number,
    private readonly log: Logger,
  ) {
    const name = tool.definition.name;
    this.breaker = new ServiceBreaker((state) =>
      log.warn(
        { tool: name, breaker: state, reason: this.breaker.openReason() },
        "breaker changed",
      ),
    );
    this.timer = setInterval(() => void this.check().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  get name(): string {
    return this.tool.definition.name;
  }

  health(): ToolHealth {
    const breaker = this.breaker.state();
    const declared = this.tool.definition.status;
    return {
      status:
        declared !== "AVAILABLE" ? declared : breaker === "closed" ? "AVAILABLE" : "UNAVAILABLE",
      breaker,
      ...this.last,
      lastError: this.breaker.openReason() ?? this.last.lastError,
    };
  }

  /**
   * Asks the service now, through the breaker (an open one is reported, not
   * passed); a check under way, or one that ended within a second, answers
   * instead.
   */
  check(): Promise<CheckResult> {
    if (this.checking) return this.checking;
    if (Date.now() - this.checkedAt < CHECK_REUSE_MS) {
      return Promise.resolve({
        ...this.health(),
        capabilities: this.tool.definition.functions.map((f) => f.name),
      });
    }
    this.checking = this.checkNow().finally(() => {
      this.checking = undefined;
      this.checkedAt = Date.now();
    });
    return this.checking;
  }

  private async checkNow(): Promise<CheckResult> {
    const capabilities = this.tool.definition.functions.map((f) => f.name);
    if (this.tool.definition.status === "MAINTENANCE" || this.closed) {
      return { ...this.health(), capabilities };
    }
    const started = Date.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), CHECK_TIMEOUT_MS);
    try {
      const report = await this.breaker.execute(async () => {
        const found = await this.service.check(controller.signal).catch((err: Error) => {
          throw new CheckFailure(
            controller.signal.aborted
              ? `no answer to health/check within ${CHECK_TIMEOUT_MS / 1000} s`
              : err.message,
          );
        });
        if (!found.healthy) throw new CheckFailure(found.lastError ?? "reported unhealthy");
        return found;
      });
      this.last = {
        lastCheckAt: new Date(started).toISOString(),
        healthy: true,
        responseTimeMs: Date.now() - started,
        version: report.version ?? this.tool.definition.version,
      };
    } catch (err) {
      if (!(err instanceof BreakerOpen)) {
        this.last = {
          lastCheckAt: new Date(started).toISOString(),
          healthy: false,
          responseTimeMs: Date.now() - started,
          version: this.last.version ?? this.tool.definition.version,
          lastError: (err as Error).message,
        };
      }
    } finally {
      clearTimeout(timer);
    }
    return { ...this.health(), capabilities };
  }

  /** A function of the tool; `not_found` naming the functions there are, with `details.function`. */
  function(functionName: string): FunctionDefinition {
    const fn = this.tool.definition.functions.find((f) => f.name === functionName);
    if (fn) return fn;
    const names = this.tool.definition.functions.map((f) => f.name);
    throw new BrokerError(
      "not_found",
      `tool ${this.name} has no function "${functionName}"${nameMeant(functionName, names)}; its functions are ${names.join(", ")}`,
      { tool: this.name, function: functionName },
    );
  }

  /** Sends a call to the service, unless its breaker or its status says it cannot take it. */
  async call(
    functionName: string,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallOutcome> {
    const fn = this.function(functionName);
    if (this.tool.definition.status !== "AVAILABLE") {
      throw this.unavailable(
        this.tool.definition.status === "MAINTENANCE"
          ? "it is in maintenance (its registration says MAINTENANCE)"
          : "its registration says UNAVAILABLE",
      );
    }
    // Not reached, and not because the address is refused: that would be refused again.
    const attempts = retry(
      handleWhen((err) => err instanceof NotReached && !(err instanceof AddressRefused)),
      {
        maxAttempts: fn.retry_count,
        backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 1000 }),
      },
    );
    const call = {
      functionName,
      args,
      callId: options.callId ?? randomUUID(),
      timeoutS: Math.max(0.001, (options.deadline - Date.now()) / 1000),
      signal: options.signal,
      caller: options.caller,
    };
    try {
      const data = await this.breaker.execute(async () => {
        try {
          return await attempts.execute(() => this.service.call(call), options.signal);
        } catch (err) {
          if (abandoned(options)) throw new CallAbandoned(err);
          throw err;
        }
      });
      return { ok: true, data };
    } catch (err) {
      if (err instanceof CallAbandoned) throw err.reason;
      if (err instanceof ExecutionFailure) return { ok: false, error: err.error };
      if (err instanceof BreakerOpen) {
        throw this.unavailable(
          `its circuit breaker is open after repeated failures (last: ${this.breaker.openReason() ?? "unknown"}); the next attempt goes through in ${Math.ceil(err.retryInMs / 1000)} s`,
          { retry_after_s: Math.ceil(err.retryInMs / 1000) },
        );
      }
      if (err instanceof BrokerError) throw err;
      // A ServiceFailure: said in words that name the service and what happened.
      throw this.unavailable((err as Error).message);
    }
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  private unavailable(why: string, details: Record<string, unknown> = {}): BrokerError {
    return new BrokerError("unavailable", `tool service ${this.name} is unavailable: ${why}`, {
      tool: this.name,
      ...details,
    });
  }
}

/**
 * Whether a failed call was given up by its caller: its signal was aborted,
 * and not by the function's own timeout running out (which is the service's
 * to answer for).
 */
function abandoned({ signal, callerTimeout }: CallOptions): boolean {
  if (!signal.aborted) return false;
  const ownTimeout =
    callerTimeout !== true &&
    signal.reason instanceof BrokerError &&
    signal.reason.kind === "timeout";
  return !ownTimeout;
}
