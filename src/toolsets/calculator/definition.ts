import { builtinDefinition } from "../builtin-toolset.js";

/** The calculator of the tool registry protocol's predefined tool contracts, as written there. */
export const CALCULATOR = builtinDefinition({
  name: "calculator",
  description: "Mathematical calculations and computations",
  category: "CALCULATION",
  functions: [
    {
      name: "calculate",
      description:
        "Perform mathematical calculations: arithmetic, functions (sqrt, sin, log…), matrices ([1,2;3,4] * [5;6]), units (5 cm + 2 inch to mm) and constants (pi, e).",
      parameters: {
        type: "object",
        properties: {
          expression: { type: "string", description: "Mathematical expression to evaluate" },
        },
        required: ["expression"],
      },
    },
    {
      name: "convert_units",
      description: "Convert between different units (km to mi, degC to degF, kWh to J…).",
      parameters: {
        type: "object",
        properties: {
          value: { type: "number" },
          from_unit: { type: "string" },
          to_unit: { type: "string" },
        },
        required: ["value", "from_unit", "to_unit"],
      },
    },
  ],
});
