import { BrokerError } from "../../contract/errors.js";
import type { Logger } from "../../contract/log.js";
import { JobPool } from "../../isolation/job-pool.js";
import { JobStopped } from "../../isolation/job-process.js";
import type { HealthReport, ServiceCall } from "../../registry/tool-service.js";
import type { BuiltinToolset } from "../builtin-toolset.js";
import { CALCULATOR } from "./definition.js";
import type { MathJob } from "./math-protocol.js";

/** Longer expressions are refused before mathjs reads them. */
export const MAX_EXPRESSION_CHARS = 2000;

// The job process is a file of its own: `.ts` when the broker runs from source.
const MATH_PROCESS = new URL(
  `./math-process${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  import.meta.url,
);

export interface CalculatorLimits {
  /** Longest an expression may run before its process is killed. */
  readonly timeoutMs: number;
  /** Heap of a calculator process; an expression that needs more ends it. */
  readonly maxMemoryMb: number;
  /** Processes that calculate at once. */
  readonly processes: number;
}

/**
 * `calculate` and `convert_units` with mathjs, in processes of their own
 * (isolation/): an expression that runs too long or needs too much memory
 * (`1e9!` with big numbers, `zeros(1e4, 1e4)`) ends its process, never the
 * broker, and callers take turns.
 */
export class Calculator implements BuiltinToolset {
  readonly definition = CALCULATOR;
  private readonly pool: JobPool;

  constructor(
    private readonly limits: CalculatorLimits,
    log: Logger,
  ) {
    this.pool = new JobPool({
      module: MATH_PROCESS,
      name: "calculator",
      processes: limits.processes,
      maxMemoryMb: limits.maxMemoryMb,
      maxReplyBytes: 1024 * 1024,
      idleMs: 60_000,
      maxWaitingPerCaller: 16,
      maxWaiting: 256,
      log,
    });
  }

  async call({ functionName, args, signal, caller }: ServiceCall): Promise<unknown> {
    switch (functionName) {
      case "calculate": {
        const expression = String(args.expression);
        if (expression.length > MAX_EXPRESSION_CHARS) {
          throw new BrokerError(
            "invalid_params",
            `the expression has ${expression.length} characters; at most ${MAX_EXPRESSION_CHARS} are taken`,
          );
        }
        if (expression.trim() === "") {
          throw new BrokerError(
            "invalid_params",
            "the expression is empty; write one such as 2 * (3 + 4)",
          );
        }
        return this.run(caller, { op: "calculate", expression }, signal);
      }
      case "convert_units": {
        const [from, to] = [String(args.from_unit), String(args.to_unit)];
        try {
          return await this.run(
            caller,
            { op: "convert", value: Number(args.value), from, to },
            signal,
          );
        } catch (err) {
          if (err instanceof BrokerError && /do not match/i.test(err.message)) {
            throw new BrokerError(
              "invalid_params",
              `cannot convert ${from} to ${to}: they do not measure the same kind of quantity`,
              { from_unit: from, to_unit: to },
            );
          }
          throw err;
        }
      }
      default:
        throw new BrokerError("not_found", `the calculator has no function "${functionName}"`, {
          function: functionName,
        });
    }
  }

  async check(): Promise<HealthReport> {
    return { healthy: true };
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  /** The processes calculating now, for tests. */
  pids(): number[] {
    return this.pool.pids();
  }

  private async run(caller: string, job: MathJob, signal: AbortSignal): Promise<unknown> {
    try {
      return await this.pool.run(caller, job, { timeoutMs: this.limits.timeoutMs, signal });
    } catch (err) {
      if (!(err instanceof JobStopped)) throw err;
      switch (err.reason) {
        case "timeout":
          throw new BrokerError(
            "invalid_params",
            `the expression took longer than ${this.limits.timeoutMs / 1000} s; it was stopped (a smaller problem may work)`,
          );
        case "memory":
          throw new BrokerError(
            "invalid_params",
            `the expression needs more than the calculator's ${this.limits.maxMemoryMb} MB of memory; it was stopped`,
          );
        case "crashed":
          throw new BrokerError("execution_failed", "the calculator failed; see the broker log");
      }
    }
  }
}
