import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { BrokerError } from "../../../core/errors.js";

export interface EmcpLimits {
  readonly maxResultItems: number;
  readonly maxOffset: number;
  readonly maxDepth: number;
}

export const DEFAULT_EMCP_LIMITS: EmcpLimits = {
  maxResultItems: 100,
  maxOffset: 5000,
  maxDepth: 6,
};

/** JSON Schema pieces the tools share, with the limits in force written into them. */
export function schemaParts(limits: EmcpLimits) {
  return {
    id: { type: "integer", minimum: 1, description: "A document id." },
    with_tvs: {
      type: "array",
      items: { type: "string", pattern: "^[A-Za-z0-9_.-]+(:d)?$" },
      description:
        'TV names to add as item.tvs; "name:d" falls back to the TV\'s default when a document has none.',
    },
    with_content: { type: "boolean", default: false, description: "Add content and introtext." },
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
  properties: Record<string, object>,
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
  const limit = args.limit;
  const offset = args.offset ?? 0;
  if (
    typeof limit !== "number" ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > limits.maxResultItems
  ) {
    throw new BrokerError(
      "invalid_params",
      `limit must be an integer from 1 to ${limits.maxResultItems} (max_result_items)`,
      {
        max_result_items: limits.maxResultItems,
      },
    );
  }
  if (
    typeof offset !== "number" ||
    !Number.isInteger(offset) ||
    offset < 0 ||
    offset > limits.maxOffset
  ) {
    throw new BrokerError(
      "invalid_params",
      `offset must be an integer from 0 to ${limits.maxOffset} (max_offset)`,
      {
        max_offset: limits.maxOffset,
      },
    );
  }
  return { limit, offset };
}
