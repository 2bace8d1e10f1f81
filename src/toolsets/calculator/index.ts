import { defineToolsetKind } from "../toolset-kind.js";
import { Calculator } from "./calculator.js";
import { CalculatorSettings } from "./settings.js";

/** The predefined `calculator`: mathjs expressions in worker processes of bounded heap. */
export const calculatorKind = defineToolsetKind({
  name: "calculator",
  settings: { key: "calculator", schema: CalculatorSettings },
  create: (settings, log) =>
    new Calculator(
      {
        timeoutMs: (settings?.timeout_s ?? 2) * 1000,
        maxMemoryMb: settings?.max_memory_mb ?? 64,
        processes: settings?.processes ?? 2,
      },
      log,
    ),
});
