import type { CmsDatabase } from "../cms-database.js";
import { itemColumns, toItems } from "../items.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { itemResult } from "./responses.js";
import type { EmcpTool } from "./tool.js";

/** `evo.content.get`: one document by id, a deleted one too (with `deleted: true`). */
export function contentGet(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.content.get",
      "Get one document by id, with the TVs named in with_tvs. item is null when there is no such document.",
      { id: p.id, ...p.item },
      ["id"],
    ),
    async run({ db }: CmsDatabase, args) {
      const row = await db
        .selectFrom("site_content")
        .select(itemColumns(args))
        .where("id", "=", args.id as number)
        .executeTakeFirst();
      return itemResult(row ? (await toItems(db, [row], args))[0] : null);
    },
  };
}
