import { readFileSync } from "node:fs";
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";

/** A server's tools as its `tools/list` gave them, with the package they came from. */
export interface FleetServer {
  /** Its mount name in the tree: the tools are at /<name>/<tool>. */
  readonly name: string;
  readonly package: string;
  readonly version: string;
  /** The package's own description: what an operator would write as the node's summary. */
  readonly summary: string;
  readonly tools: readonly {
    readonly name: string;
    readonly description: string;
    readonly parameters: Readonly<Record<string, { description?: string; enum?: unknown[] }>>;
  }[];
}

export interface Query {
  readonly query: string;
  /** The tools that answer it (single), or the tools the task needs (multi). */
  readonly tools: readonly string[];
  readonly kind: "single" | "multi";
}

export function loadJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, "utf8")) as T;
}

/** The fleet as the index reads it, each server under `prefix`. */
export function searchableFleet(servers: readonly FleetServer[], prefix = ""): SearchableTool[] {
  return servers.flatMap((server) =>
    server.tools.map((tool) => ({
      path: `${prefix}/${server.name}/${tool.name}`,
      name: tool.name,
      description: tool.description,
      parameters: Object.entries(tool.parameters)
        .flatMap(([name, p]) => [name, p.description ?? "", ...(p.enum ?? []).map(String)])
        .join(" "),
      context: `${prefix.split("/").join(" ")} ${server.name} ${server.summary}`,
    })),
  );
}
