import type { Tool } from "@modelcontextprotocol/server";
import { createTwoFilesPatch } from "diff";
import { canonicalJson, digestOf } from "../contract/digest.js";

/**
 * What a tool is, as far as a model and its user trust it: what it is
 * called, what it says it does, what it takes and gives, and its hints.
 * `_meta` and `icons` are left out: they change nothing a model reads.
 */
export interface ToolDefinition {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

export function definitionOf(tool: Tool): ToolDefinition {
  return {
    name: tool.name,
    ...(tool.title !== undefined && { title: tool.title }),
    ...(tool.description !== undefined && { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined && { outputSchema: tool.outputSchema }),
    ...(tool.annotations !== undefined && { annotations: tool.annotations }),
  };
}

/** SHA-256 of a definition's canonical JSON: equal definitions, equal fingerprints. */
export function fingerprintOf(definition: ToolDefinition): string {
  return digestOf(definition);
}

const FIELDS = [
  "name",
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
] as const;

/** The fields in which two definitions differ. */
export function changedFields(before: ToolDefinition, after: ToolDefinition): string[] {
  return FIELDS.filter((f) => canonicalJson(before[f]) !== canonicalJson(after[f]));
}

/** A unified diff of two definitions, as pretty JSON with sorted keys: what a person reviews. */
export function definitionDiff(
  before: ToolDefinition | undefined,
  after: ToolDefinition,
  label: string,
): string {
  const pretty = (d: ToolDefinition | undefined) =>
    d === undefined ? "" : `${JSON.stringify(JSON.parse(canonicalJson(d) ?? "{}"), null, 2)}\n`;
  return createTwoFilesPatch(
    `${label} (pinned)`,
    `${label} (offered)`,
    pretty(before),
    pretty(after),
  );
}
