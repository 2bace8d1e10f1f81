import type { Kysely } from "kysely";
import { ITEM_COLUMNS, loadTvs, parseWithTvs, toItem } from "../items.js";
import type { EvoDatabase } from "../schema.js";
import { type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { TOOLSET_VERSION } from "./responses.js";
import { placeOf } from "./sibling-order.js";
import type { EmcpTool } from "./tool.js";

/**
 * `evo.content.neighbors`: the immediate previous and next sibling in menu
 * order. `items` holds those there are, previous first; `meta.prev` and
 * `meta.next` name their ids (null where there is none).
 */
export function contentNeighbors(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.content.neighbors",
      "Get the previous and next sibling of a document in menu order.",
      { id: p.id, with_tvs: p.with_tvs, with_content: p.with_content },
      ["id"],
    ),
    async run(db: Kysely<EvoDatabase>, args) {
      const place = await placeOf(db, args.id as number);
      const columns = [
        ...ITEM_COLUMNS,
        ...(args.with_content === true ? (["content", "introtext"] as const) : []),
      ];
      const side = (before: boolean) =>
        place === undefined
          ? Promise.resolve(undefined)
          : db
              .selectFrom("site_content")
              .select(columns)
              .where("parent", "=", place.parent)
              .where("deleted", "=", 0)
              .where((eb) =>
                eb.or([
                  eb("menuindex", before ? "<" : ">", place.menuindex),
                  eb.and([
                    eb("menuindex", "=", place.menuindex),
                    eb("id", before ? "<" : ">", place.id),
                  ]),
                ]),
              )
              .orderBy("menuindex", before ? "desc" : "asc")
              .orderBy("id", before ? "desc" : "asc")
              .limit(1)
              .executeTakeFirst();
      const [prev, next] = await Promise.all([side(true), side(false)]);
      const rows = [prev, next].filter((r) => r !== undefined);
      const requests = parseWithTvs(args.with_tvs as string[] | undefined);
      const tvs = await loadTvs(
        db,
        rows.map((r) => r.id),
        requests,
      );
      const items = rows.map((r) => toItem(r, requests.length > 0 ? tvs.get(r.id) : undefined));
      const structured = {
        items,
        meta: {
          count: items.length,
          prev: prev?.id ?? null,
          next: next?.id ?? null,
          toolsetVersion: TOOLSET_VERSION,
        },
      };
      return {
        content: [{ type: "text", text: JSON.stringify(structured) }],
        structuredContent: structured,
      };
    },
  };
}
