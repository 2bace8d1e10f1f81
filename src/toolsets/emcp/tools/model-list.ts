import { sql } from "kysely";
import type { CmsDatabase } from "../cms-database.js";
import { BrokerError } from "../../../contract/errors.js";
import { MODELS, type ModelName } from "../models.js";
import { MAX_WHERE, type EmcpLimits, page, schemaParts, toolDefinition } from "./arguments.js";
import { comparison, OPERATORS, type Operator } from "./filter-operators.js";
import { listResult } from "./responses.js";
import type { EmcpTool } from "./tool.js";

/** The allowlisted model of a call; an unknown one is `not_found` (-32601 in the eMCP profile). */
export function modelOf(name: unknown, allowed: readonly ModelName[]): (typeof MODELS)[ModelName] {
  if (typeof name !== "string" || !(allowed as readonly string[]).includes(name)) {
    throw new BrokerError(
      "not_found",
      `unknown model "${String(name)}"; the models are ${allowed.join(", ")}`,
      { model: name },
    );
  }
  return MODELS[name as ModelName];
}

/**
 * The `model` parameter. Its allowed values are written in the description,
 * not as an enum: the contract answers an unknown model with "not found"
 * (-32601), which a schema enum would turn into "invalid params".
 */
export function modelParameter(allowed: readonly ModelName[]) {
  return { type: "string", description: `The model: one of ${allowed.join(", ")}.` };
}

function field(model: (typeof MODELS)[ModelName], name: unknown, where: string): string {
  if (typeof name !== "string" || !(model.fields as readonly string[]).includes(name)) {
    throw new BrokerError(
      "invalid_params",
      `${where}: field "${String(name)}" is not readable; the fields are ${model.fields.join(", ")}`,
      {
        field: name,
        allowed: model.fields,
      },
    );
  }
  return name;
}

/** `evo.model.list`: rows of an allowlisted model, filtered and ordered by allowlisted fields only. */
export function modelList(limits: EmcpLimits, allowed: readonly ModelName[]): EmcpTool {
  const p = schemaParts(limits);
  return {
    definition: toolDefinition(
      "evo.model.list",
      "List rows of an Evolution model (templates, TVs, snippets, users…), filtered by structured conditions on its readable fields.",
      {
        model: modelParameter(allowed),
        filters: {
          type: "object",
          properties: {
            where: {
              type: "array",
              maxItems: MAX_WHERE,
              items: {
                type: "object",
                properties: {
                  field: { type: "string" },
                  op: { type: "string", enum: [...OPERATORS] },
                  value: {},
                },
                required: ["field", "op"],
                additionalProperties: false,
              },
            },
          },
          additionalProperties: false,
        },
        order_by: { type: "string", description: "A readable field of the model; default id." },
        order_dir: { type: "string", enum: ["asc", "desc"], default: "asc" },
        ...p.page,
      },
      ["model", "limit"],
    ),
    async run({ db, sql: engine }: CmsDatabase, args) {
      const model = modelOf(args.model, allowed);
      const { limit, offset } = page(args, limits);
      const where =
        (
          args.filters as
            { where?: { field: unknown; op: Operator; value?: unknown }[] } | undefined
        )?.where ?? [];
      if (where.length > MAX_WHERE) {
        throw new BrokerError(
          "invalid_params",
          `filters.where has ${where.length} conditions; at most ${MAX_WHERE} are taken`,
          { max_conditions: MAX_WHERE },
        );
      }
      const integers: readonly string[] = model.integers;
      const conditions = where.map((c, i) => ({
        column: field(model, c.field, `filters.where[${i}]`),
        op: c.op,
        value: c.value,
        where: `filters.where[${i}]`,
      }));
      const orderBy = args.order_by === undefined ? "id" : field(model, args.order_by, "order_by");
      const dir = args.order_dir === "desc" ? "desc" : "asc";
      const rows = await db
        .selectFrom(model.table)
        .select(model.fields.map((f) => sql.ref(f).as(f)))
        .where((eb) =>
          eb.and(
            conditions.map((c) =>
              comparison(
                eb,
                engine,
                {
                  expr: sql.ref(c.column),
                  type: integers.includes(c.column) ? "integer" : "text",
                },
                c.op,
                c.value,
                c.where,
              ),
            ),
          ),
        )
        .orderBy(sql.ref(orderBy), dir)
        .$if(orderBy !== "id", (q) => q.orderBy(sql.ref("id"), dir))
        .limit(limit + 1)
        .offset(offset)
        .execute();
      return listResult(rows.slice(0, limit), limit, offset, rows.length > limit);
    },
  };
}
