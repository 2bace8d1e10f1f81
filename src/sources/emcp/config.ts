/** The `source` fields of the Evolution CMS (eMCP) toolset. */
import { z } from "zod";
import { CmsDatabaseUrl, CmsTablePrefix, mountFields } from "../../config/schema.js";
import { MODEL_NAMES } from "../../toolsets/emcp/models.js";

export const EmcpSourceSchema = z.strictObject({
  backend: z.literal("emcp"),
  database: CmsDatabaseUrl.describe(
    "The Evolution CMS database, read-only; ${ENV} works for credentials.",
  ),
  table_prefix: CmsTablePrefix.optional(),
  max_result_items: z.int().positive().optional().describe("The largest limit; default 100."),
  max_offset: z.int().nonnegative().optional().describe("The largest offset; default 5000."),
  max_depth: z.int().positive().optional().describe("The deepest depth; default 6."),
  models: z
    .array(z.enum(MODEL_NAMES))
    .min(1)
    .optional()
    .describe("Narrows the models evo.model.* may read; default all of them."),
  ...mountFields,
});

export type EmcpSourceConfig = z.infer<typeof EmcpSourceSchema>;
