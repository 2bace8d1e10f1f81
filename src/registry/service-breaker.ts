import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitState,
  ExponentialBackoff,
  handleWhen,
  noJitterGenerator,
  type CircuitBreakerPolicy,
  type IBreaker,
} from "cockatiel";
import { BrokerError } from "../contract/errors.js";
import { RequestFailed } from "../net/guarded-request.js";
import { ExecutionFailure } from "./tool-service.js";

/** When a breaker opens, and for how long (docs/REGISTRY.md, its error -32006). */
export const BREAKER_RULES = {
  failedChecks: 3,
  failedCalls: 5,
  coolDownMs: 30_000,
  maxCoolDownMs: 300_000,
} as const;

export type BreakerState = "closed" | "open" | "half_open";

/** A health check that failed: counted apart from failed calls. */
export class CheckFailure extends Error {
  override readonly name = "CheckFailure";
}

/** The breaker is open (or its one probe is under way): the call was not sent. */
export class BreakerOpen extends Error {
  override readonly name = "BreakerOpen";

  constructor(readonly retryInMs: number) {
    super("the circuit breaker is open");
  }
}

/**
 * The call failed because its caller gave up (went away, or chose a timeout
 * shorter than the service needed): it says nothing of the service, so it
 * never opens the breaker, which every caller shares.
 */
export class CallAbandoned extends Error {
  override readonly name = "CallAbandoned";

  constructor(readonly reason: unknown) {
    super("the caller gave up on the call");
  }
}

/** What says the service is failing, as opposed to a caller's mistake or a cancelled call. */
function countsAgainstService(err: unknown): boolean {
  return (
    err instanceof RequestFailed ||
    err instanceof ExecutionFailure ||
    err instanceof CheckFailure ||
    (err instanceof BrokerError && (err.kind === "timeout" || err.kind === "unavailable"))
  );
}

/**
 * cockatiel's consecutive-failure breaker with two thresholds: failed health
 * checks and failed calls are counted apart, and any success resets both.
 * cockatiel records the failure before asking the breaker, so the failure's
 * kind is read from the policy's `lastFailure`.
 */
class ChecksAndCallsBreaker implements IBreaker {
  state = { checks: 0, calls: 0 };

  constructor(private readonly lastError: () => unknown) {}

  success(): void {
    this.state = { checks: 0, calls: 0 };
  }

  failure(): boolean {
    if (this.lastError() instanceof CheckFailure) this.state.checks++;
    else this.state.calls++;
    return (
      this.state.checks >= BREAKER_RULES.failedChecks ||
      this.state.calls >= BREAKER_RULES.failedCalls
    );
  }
}

/**
 * One service's circuit breaker: after 3 failed checks or 5 failed calls in a
 * row it opens, and calls fail at once; after a cool-down (30 s, doubled on
 * each reopening up to 5 minutes) one probe goes through, and its success
 * closes it. Built on cockatiel; time is `Date.now()`, so fake clocks drive it.
 */
export class ServiceBreaker {
  private readonly policy: CircuitBreakerPolicy;
  private openedAt = 0;
  private coolDownMs = 0;
  private reason: string | undefined;

  constructor(onChange: (state: BreakerState) => void) {
    const policy: CircuitBreakerPolicy = circuitBreaker(handleWhen(countsAgainstService), {
      breaker: new ChecksAndCallsBreaker(() => failureOf(policy)),
      halfOpenAfter: new ExponentialBackoff({
        generator: noJitterGenerator,
        initialDelay: BREAKER_RULES.coolDownMs,
        maxDelay: BREAKER_RULES.maxCoolDownMs,
      }),
    });
    policy.onBreak(() => {
      const reopened = this.coolDownMs > 0 && this.openedAt > 0;
      this.coolDownMs = reopened
        ? Math.min(this.coolDownMs * 2, BREAKER_RULES.maxCoolDownMs)
        : BREAKER_RULES.coolDownMs;
      this.openedAt = Date.now();
      const last = failureOf(policy);
      this.reason = last instanceof Error ? last.message : undefined;
    });
    policy.onReset(() => {
      this.openedAt = 0;
      this.coolDownMs = 0;
    });
    policy.onStateChange(() => onChange(this.state()));
    this.policy = policy;
  }

  state(): BreakerState {
    switch (this.policy.state) {
      case CircuitState.Closed:
        return "closed";
      case CircuitState.HalfOpen:
        return "half_open";
      default:
        return "open";
    }
  }

  /** The failure that opened it, while it is not closed. */
  openReason(): string | undefined {
    return this.state() === "closed" ? undefined : this.reason;
  }

  /** Milliseconds until the next probe may go; 0 when closed or due. */
  retryInMs(): number {
    if (this.state() === "closed") return 0;
    return Math.max(0, this.openedAt + this.coolDownMs - Date.now());
  }

  /** Runs `fn` unless the breaker is open (BreakerOpen), counting its failure if it fails. */
  async execute<T>(fn: () => Promise<T>): Promise<T> {
    // One probe at a time: the others fail at once rather than wait for its outcome.
    if (this.policy.state === CircuitState.HalfOpen) throw new BreakerOpen(this.retryInMs());
    try {
      return await this.policy.execute(fn);
    } catch (err) {
      if (err instanceof BrokenCircuitError) throw new BreakerOpen(this.retryInMs());
      throw err;
    }
  }
}

function failureOf(policy: CircuitBreakerPolicy): unknown {
  const last = policy.lastFailure;
  return last !== undefined && "error" in last ? last.error : undefined;
}
