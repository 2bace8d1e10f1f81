/** The `source` fields of a registered tool service: which one. */
import { z } from "zod";
import { mountFields } from "../../config/schema.js";

export const RegistrySourceSchema = z.strictObject({
  backend: z.literal("registry"),
  tool: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "a registered tool's name: letters, digits, _ and -")
    .describe(
      "The name a tool service registered with (tools/register); up once it is registered. Every registered tool is also mounted under registry.mount.",
    ),
  ...mountFields,
});

export type RegistrySourceConfig = z.infer<typeof RegistrySourceSchema>;
