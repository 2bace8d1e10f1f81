import { sql } from "kysely";
import type { CmsDatabase } from "../cms-database.js";
import type { ModelName } from "../models.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { modelOf, modelParameter } from "./model-list.js";
import { itemResult } from "./responses.js";
import type { EmcpTool } from "./tool.js";

/** `evo.model.get`: one row of an allowlisted model by id, its readable fields only. */
export function modelGet(limits: EmcpLimits, allowed: readonly ModelName[]): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.model.get",
      "Get one row of an Evolution model by id. item is null when there is none.",
      { model: modelParameter(allowed), id: p.id },
      ["model", "id"],
    ),
    async run({ db }: CmsDatabase, args) {
      const model = modelOf(args.model, allowed);
      const row = await db
        .selectFrom(model.table)
        .select(model.fields.map((f) => sql.ref(f).as(f)))
        .where(sql.ref("id"), "=", args.id as number)
        .executeTakeFirst();
      return itemResult(row ?? null);
    },
  };
}
