/** The `source` fields of a built-in toolset: which one (its settings are under `toolsets`). */
import { z } from "zod";
import { mountFields } from "../../config/schema.js";
import { TOOLSET_NAMES } from "../../toolsets/kinds.js";

export const BuiltinSourceSchema = z.strictObject({
  backend: z.literal("builtin"),
  toolset: z
    .enum(TOOLSET_NAMES)
    .describe(
      "One of the tool registry protocol's predefined tools; its settings are the config's `toolsets`.",
    ),
  ...mountFields,
});

export type BuiltinSourceConfig = z.infer<typeof BuiltinSourceSchema>;
