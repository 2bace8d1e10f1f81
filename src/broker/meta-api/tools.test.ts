import { describe, expect, it } from "vitest";
import type { EntrySummary } from "./answers.js";
import { metaToolsFor } from "./tools.js";

/** A tree's top as a config of a few servers has it: five nodes, a summary of 40 to 60 characters each. */
const TOP: EntrySummary[] = [
  ["github", "Issues, pull requests and code of your repositories"],
  ["memory", "Memory that lasts across chats, as a knowledge graph"],
  ["files", "Read-only access to the project's documents"],
  ["cms", "A demo Evolution CMS site, read-only"],
  ["registry", "Tool services registered at run time"],
].map(([name, summary]) => ({ path: `/${name}`, name: name!, type: "node", summary }));

describe("the meta tools as MCP lists them", () => {
  it("name every node of a small tree's top, most with their summaries, within 3,072 bytes", () => {
    const tools = metaToolsFor(TOP, true);
    expect(JSON.stringify({ tools }).length).toBeLessThanOrEqual(3072);
    const search = tools.find((tool) => tool.name === "meta_search")!.description!;
    for (const { name } of TOP) expect(search).toMatch(new RegExp(`[:;] ${name}\\b`));
    expect(search.match(/\w \([^)]+\)/g)!.length).toBeGreaterThanOrEqual(3);
  });

  it("carry no schema keyword that allows only what JSON allows anyway", () => {
    const schemas = JSON.stringify(metaToolsFor([], true).map((tool) => tool.inputSchema));
    expect(schemas).not.toContain('"propertyNames":{"type":"string"}');
    expect(schemas).not.toContain('"additionalProperties":{}');
    expect(schemas).toContain('"additionalProperties":false');
  });
});
