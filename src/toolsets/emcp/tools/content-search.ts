import { sql } from "kysely";
import { BrokerError } from "../../../contract/errors.js";
import type { CmsDatabase } from "../cms-database.js";
import { INT_MAX, type EmcpLimits, schemaParts, toolDefinition } from "./arguments.js";
import { depthOf, listDocuments, type ItemQuery } from "./document-list.js";
import { OPERATORS } from "./filter-operators.js";
import { CAST_PATTERN } from "./tv-cast.js";
import { tvConditions } from "./tv-conditions.js";
import type { EmcpTool } from "./tool.js";

const ORDER_COLUMNS = ["id", "pagetitle", "menuindex", "createdon", "pub_date"] as const;
const DIRECTION = { type: "string", enum: ["asc", "desc"] };

/**
 * `evo.content.search`: documents by their fields, place in the tree, TV
 * values and tags, in a stated order that always ends with id. Deleted
 * documents are hidden unless `deleted: true` asks for them (and only them).
 */
export function contentSearch(limits: EmcpLimits): EmcpTool {
  const p = schemaParts(limits);
  const tvCast = {
    type: "string",
    pattern: CAST_PATTERN,
    description:
      "Read the value as a number: UNSIGNED, SIGNED or DECIMAL(p,s). Values that are not numbers never match.",
  };
  const useDefault = {
    type: "boolean",
    default: false,
    description:
      "Where a document has no value, use the TV's default (if its template has the TV).",
  };
  return {
    definition: toolDefinition(
      "evo.content.search",
      "Search documents by published/deleted/template/hidemenu, by parent and depth, by TV values (tv_filters) and TagSaver tags, ordered by a field, the publication date or TVs. Deleted documents are hidden unless deleted is true.",
      {
        parent: {
          type: "integer",
          minimum: 0,
          maximum: INT_MAX,
          description: "Only documents under this one (0: the top), depth levels down.",
        },
        depth: {
          ...p.depth,
          description: `With parent, levels below it (default 1: children); alone, the top ${limits.maxDepth} levels at most.`,
        },
        published: { type: "boolean" },
        deleted: {
          type: "boolean",
          default: false,
          description: "true: the deleted documents only.",
        },
        template: { type: "integer", minimum: 0, maximum: INT_MAX },
        hidemenu: { type: "boolean" },
        ...p.item,
        tv_filters: {
          type: "array",
          maxItems: 10,
          description:
            "Conditions on TV values, all of which must hold. like: contains; like-r: starts with; like-l: ends with. null/!null take no value; in/not_in take a non-empty array.",
          items: {
            type: "object",
            properties: {
              tv: { type: "string", description: "A TV name." },
              op: { type: "string", enum: [...OPERATORS] },
              value: {
                type: ["string", "number", "boolean", "array", "null"],
                items: { type: ["string", "number"] },
                maxItems: 500,
              },
              cast: {
                ...tvCast,
                description: `${tvCast.description} Only with =, !=, >, >=, <, <=.`,
              },
              use_default: useDefault,
            },
            required: ["tv", "op"],
            additionalProperties: false,
          },
        },
        tv_order: {
          type: "array",
          maxItems: 5,
          description:
            "Sort by TV values first, in this order; documents without a value come last.",
          items: {
            type: "object",
            properties: {
              tv: { type: "string" },
              dir: { ...DIRECTION, default: "asc" },
              cast: tvCast,
              use_default: useDefault,
            },
            required: ["tv"],
            additionalProperties: false,
          },
        },
        tags_data: {
          type: "object",
          description: "Documents carrying any of these TagSaver tags in the given TV.",
          properties: {
            tv_id: { type: "integer", minimum: 1, maximum: INT_MAX },
            tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 50 },
          },
          required: ["tv_id", "tags"],
          additionalProperties: false,
        },
        order_by: { type: "string", enum: [...ORDER_COLUMNS], description: "Default id." },
        order_dir: { ...DIRECTION, default: "asc", description: "The direction of order_by." },
        order_by_date: {
          ...DIRECTION,
          description:
            "Order by pub_date where set, else createdon (after tv_order, before order_by).",
        },
        ...p.page,
      },
      ["limit"],
    ),
    async run(cms: CmsDatabase, args) {
      const tags = args.tags_data as { tv_id: number; tags: string[] } | undefined;
      if (tags && !cms.hasTags) {
        throw new BrokerError(
          "invalid_params",
          "tags_data needs the TagSaver tables (tags, site_content_tags), which this database does not have",
        );
      }
      const tv = await tvConditions(
        cms,
        (args.tv_filters as Record<string, unknown>[] | undefined) ?? [],
        (args.tv_order as Record<string, unknown>[] | undefined) ?? [],
      );
      const walks = args.parent !== undefined || args.depth !== undefined;
      const flag = (name: "published" | "hidemenu") =>
        typeof args[name] === "boolean" ? Number(args[name]) : undefined;
      const published = flag("published");
      const hidemenu = flag("hidemenu");
      const template = args.template as number | undefined;
      return listDocuments(cms, args, limits, {
        tree: walks
          ? cms.tree.below((args.parent as number | undefined) ?? 0, depthOf(args, limits))
          : undefined,
        deleted: args.deleted === true,
        where: (q) =>
          tv
            .apply(q)
            .$if(published !== undefined, (w) => w.where("published", "=", published!))
            .$if(hidemenu !== undefined, (w) => w.where("hidemenu", "=", hidemenu!))
            .$if(template !== undefined, (w) => w.where("template", "=", template!))
            .$if(tags !== undefined, (w) =>
              w.where("site_content.id", "in", (sub) =>
                sub
                  .selectFrom("site_content_tags")
                  .innerJoin("tags", "tags.id", "site_content_tags.tag_id")
                  .select("site_content_tags.doc_id")
                  .where("site_content_tags.tv_id", "=", tags!.tv_id)
                  .where(cms.sql.exactText(sql.ref("tags.name")), "in", tags!.tags),
              ),
            ),
        order: (q) => orderOf(tv.orderBy(q), args),
      });
    },
  };
}

/** After tv_order: order_by_date, then order_by (default id), then id: pages never overlap. */
function orderOf(q: ItemQuery, args: Record<string, unknown>): ItemQuery {
  let ordered = q;
  if (args.order_by_date === "asc" || args.order_by_date === "desc") {
    ordered = ordered.orderBy(
      sql`case when ${sql.ref("site_content.pub_date")} <> 0 then ${sql.ref("site_content.pub_date")} else ${sql.ref("site_content.createdon")} end`,
      args.order_by_date,
    );
  }
  const column = (args.order_by as (typeof ORDER_COLUMNS)[number] | undefined) ?? "id";
  const dir = args.order_dir === "desc" ? "desc" : "asc";
  ordered = ordered.orderBy(`site_content.${column}`, dir);
  return column === "id" ? ordered : ordered.orderBy("site_content.id");
}
