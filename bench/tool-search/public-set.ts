/**
 * A public tool-retrieval set: a fleet of nodes with tools, and requests with
 * the tools that answer them, from public datasets (ToolBench, BFCL,
 * API-Bank, RestBench, Seal-Tools). It is not part of this repository: the
 * folder is given by MCP_BROKER_TOOL_SEARCH_SET (fleet.json, queries.json).
 *
 * A quarter of the requests, chosen by a hash of their text, is held out:
 * rankings are tuned on the rest and the held-out part is only reported.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";
import { loadJson } from "./fleet.js";

interface PublicFleet {
  readonly nodes: readonly {
    readonly path: string;
    readonly summary: string;
    readonly tools: readonly {
      readonly name: string;
      readonly description: string;
      readonly inputSchema: {
        readonly properties?: Record<string, { description?: string; enum?: unknown[] }>;
        readonly required?: string[];
      };
    }[];
  }[];
}

export interface PublicQuery {
  /** The dataset it comes from. */
  readonly set: string;
  readonly q: string;
  readonly gold: readonly string[];
  /** A hash of its dataset and text: names it without quoting it. */
  readonly id: string;
  readonly heldOut: boolean;
}

export interface PublicSet {
  readonly nodes: PublicFleet["nodes"];
  readonly queries: readonly PublicQuery[];
}

export const PUBLIC_SET_VARIABLE = "MCP_BROKER_TOOL_SEARCH_SET";

/** The set, or undefined (and why) when it is not there. */
export function loadPublicSet(): PublicSet | string {
  const dir = process.env[PUBLIC_SET_VARIABLE];
  if (!dir) return `${PUBLIC_SET_VARIABLE} is not set`;
  if (!existsSync(join(dir, "fleet.json"))) return `${dir} holds no fleet.json`;
  const fleet = loadJson<PublicFleet>(join(dir, "fleet.json"));
  const queries = loadJson<{ set: string; q: string; gold: string[] }[]>(join(dir, "queries.json"));
  return {
    nodes: fleet.nodes,
    queries: queries.map((q) => {
      const hash = fnv1a(`${q.set}\n${q.q}`);
      return { ...q, id: hash.toString(16).padStart(8, "0"), heldOut: hash % 4 === 0 };
    }),
  };
}

/** The fleet as the broker's index reads a tree of it. */
export function publicTools(set: PublicSet): SearchableTool[] {
  return set.nodes.flatMap((node) =>
    node.tools.map((tool) => ({
      path: `${node.path}/${tool.name}`,
      name: tool.name,
      description: tool.description,
      parameters: Object.entries(tool.inputSchema.properties ?? {})
        .flatMap(([name, p]) => [name, p.description ?? "", ...(p.enum ?? []).map(String)])
        .join(" "),
      requiredParameters: tool.inputSchema.required ?? [],
      context: `${node.path.slice(1)} ${node.summary}`,
    })),
  );
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}
