import type { Tool } from "@modelcontextprotocol/server";
import { BrokerError } from "../../../contract/errors.js";

export interface EmcpLimits {
  readonly maxResultItems: number;
  readonly maxOffset: number;
  readonly maxDepth: number;
}

/**
 * The range of Evolution's INT columns. Every integer argument is checked
 * against it before SQL sees it: PostgreSQL refuses a larger value where
 * MariaDB and SQLite would answer nothing, and the engines must agree.
 */
export const INT_MAX = 2_147_483_647;
export const INT_MIN = -2_147_483_648;
/** Values of one `in` / `not_in` list: far below every engine's bound-parameter limit. */
export const MAX_IN_LIST = 1000;
/** Conditions in one `filters.where`: SQLite's expression depth allows about a thousand. */
export const MAX_WHERE = 100;

export const DEFAULT_EMCP_LIMITS: EmcpLimits = {
  maxResultItems: 100,
  maxOffset: 5000,
  maxDepth: 6,
};

/** JSON Schema pieces the tools share, with the limits in force written into them. */
export function schemaParts(limits: EmcpLimits) {
  const item = {
    with_tvs: {
      type: "array",
      items: { type: "string", pattern: "^[A-Za-z0-9_.-]+(:d)?$" },
      description:
        'TV names to add as item.tvs; "name:d" falls back to the TV\'s default when a document has none.',
    },
    with_content: { type: "boolean", default: false, description: "Add content and introtext." },
  } as const;
  const page = {
    limit: {
      type: "integer",
      minimum: 1,
      maximum: limits.maxResultItems,
      description: `Page size, 1 to ${limits.maxResultItems}.`,
    },
    offset: {
      type: "integer",
      minimum: 0,
      maximum: limits.maxOffset,
      default: 0,
      description: `Items to skip, at most ${limits.maxOffset}.`,
    },
  } as const;
  return {
    id: { type: "integer", minimum: 1, maximum: INT_MAX, description: "A document id." },
    /** What a document answer may add: TVs, content. */
    item,
    /** limit and offset. */
    page,
    /** What every list of documents takes after its own parameters: the item extras, the page. */
    listing: { ...item, ...page },
    depth: {
      type: "integer",
      minimum: 1,
      maximum: limits.maxDepth,
      default: 1,
      description: `Levels, 1 to ${limits.maxDepth}.`,
    },
  } as const;
}

export function toolDefinition(
  name: string,
  description: string,
  properties: NonNullable<Tool["inputSchema"]["properties"]>,
  required: string[],
): Tool {
  return {
    name,
    description,
    inputSchema: { type: "object", properties, required, additionalProperties: false },
    annotations: {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  };
}

/** `limit` and `offset`, checked again here: the contract's -32602 does not depend on the broker's validation. */
export function page(
  args: Record<string, unknown>,
  limits: EmcpLimits,
): { limit: number; offset: number } {
  return {
    limit: integerIn("limit", args.limit, 1, limits.maxResultItems, "max_result_items"),
    offset: integerIn("offset", args.offset ?? 0, 0, limits.maxOffset, "max_offset"),
  };
}

function integerIn(
  name: string,
  value: unknown,
  min: number,
  max: number,
  setting: string,
): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new BrokerError(
      "invalid_params",
      `${name} must be an integer from ${min} to ${max} (${setting})`,
      {
        [setting]: max,
      },
    );
  }
  return value;
}
