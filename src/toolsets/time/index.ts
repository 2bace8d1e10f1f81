import { defineToolsetKind } from "../toolset-kind.js";
import { TimeTool } from "./time-tool.js";

/** The predefined `time_tool`: time zones, formats and differences; it has no settings. */
export const timeKind = defineToolsetKind({
  name: "time_tool",
  create: () => new TimeTool(),
});
