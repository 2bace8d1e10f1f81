import { z } from "zod";
import { Seconds } from "../../config/schema.js";

/** `toolsets.calculator`. */
export const CalculatorSettings = z.strictObject({
  timeout_s: Seconds.optional().describe("Longest an expression may run; default 2."),
  max_memory_mb: z
    .int()
    .min(16)
    .max(4096)
    .optional()
    .describe(
      "Heap of a calculator process, in MiB; an expression that needs more is stopped. Default 64.",
    ),
  processes: z
    .int()
    .min(1)
    .max(16)
    .optional()
    .describe(
      "Processes that calculate at once, started when needed; while callers wait, none holds more than all but one. Default 2.",
    ),
});
