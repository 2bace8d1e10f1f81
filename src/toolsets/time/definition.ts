import { builtinDefinition } from "../builtin-toolset.js";

/** The time tool of the tool registry protocol's predefined tool contracts, as written there. */
export const TIME_TOOL = builtinDefinition({
  name: "time_tool",
  description: "Time and date utilities",
  category: "TIME",
  functions: [
    {
      name: "current_time",
      description:
        'Get current time in specified timezone (an IANA name such as Europe/Berlin); format ISO8601, RFC2822, unix, or Luxon tokens such as "yyyy-MM-dd HH:mm".',
      parameters: {
        type: "object",
        properties: {
          timezone: { type: "string", default: "UTC" },
          format: { type: "string", default: "ISO8601" },
        },
      },
    },
    {
      name: "time_difference",
      description:
        "Calculate time difference between two timestamps (ISO 8601; without an offset, UTC is assumed), signed: end minus start.",
      parameters: {
        type: "object",
        properties: {
          start_time: { type: "string" },
          end_time: { type: "string" },
          unit: {
            type: "string",
            enum: ["seconds", "minutes", "hours", "days"],
            default: "hours",
          },
        },
        required: ["start_time", "end_time"],
      },
    },
  ],
});
