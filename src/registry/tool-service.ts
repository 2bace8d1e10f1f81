/** What the registry needs of a tool service, wherever it runs (over HTTP, or in the broker). */
import type { ServiceDefinition } from "./tool-definition.js";

export interface ServiceCall {
  readonly functionName: string;
  readonly args: Record<string, unknown>;
  readonly callId: string;
  /** Seconds the service has before the broker gives up, for the request's `timeout`. */
  readonly timeoutS: number;
  readonly signal: AbortSignal;
  /** Who is calling (the principal's id): a service shared by many callers takes them in turns. */
  readonly caller: string;
}

/** A call the service ran and reported as failed (-32001), in the protocol's error terms. */
export interface ExecutionError {
  readonly errorType: string;
  readonly details: string;
}

export interface HealthReport {
  readonly healthy: boolean;
  readonly version?: string | undefined;
  readonly capabilities?: string[] | undefined;
  /** Why the service is not healthy, in its own words. */
  readonly lastError?: string | undefined;
}

/**
 * One service behind a registered tool. `call` resolves with the result's
 * `data`; it throws `ExecutionFailure` when the service ran the call and it
 * failed, a BrokerError for what the caller must change (arguments, rate),
 * and `ServiceFailure` when the service could not be reached or answered
 * something unusable.
 */
export interface ToolService {
  call(call: ServiceCall): Promise<unknown>;
  check(signal: AbortSignal): Promise<HealthReport>;
}

/**
 * A service that runs in the broker's own process (a predefined tool): what
 * it is, in the registry's terms, besides how it answers.
 */
export interface InProcessService extends ToolService {
  readonly definition: ServiceDefinition;
  close?(): Promise<void>;
}

/** The service ran the call and says it failed. */
export class ExecutionFailure extends Error {
  override readonly name = "ExecutionFailure";

  constructor(readonly error: ExecutionError) {
    super(error.details);
  }
}
