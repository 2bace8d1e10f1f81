import { BrokerError } from "../../contract/errors.js";
import type { HealthReport, ServiceCall } from "../../registry/tool-service.js";
import type { BuiltinToolset } from "../builtin-toolset.js";
import { CALCULATOR } from "./definition.js";
import { MathThread, type MathLimits } from "./math-thread.js";

/** Longer expressions are refused before mathjs reads them. */
export const MAX_EXPRESSION_CHARS = 2000;

/** `calculate` and `convert_units` with mathjs, in a thread of their own. */
export class Calculator implements BuiltinToolset {
  readonly definition = CALCULATOR;
  private readonly thread: MathThread;

  constructor(limits: MathLimits = { timeoutMs: 2000, maxMemoryMb: 64 }) {
    this.thread = new MathThread(limits);
  }

  async call({ functionName, args, signal }: ServiceCall): Promise<unknown> {
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
        return this.thread.run({ op: "calculate", expression }, signal);
      }
      case "convert_units": {
        const [from, to] = [String(args.from_unit), String(args.to_unit)];
        try {
          return await this.thread.run(
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
    return this.thread.close();
  }
}
