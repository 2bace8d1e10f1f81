/**
 * A stdio MCP server that lists the tools of a public tool-retrieval fleet
 * (a JSON file given as the first argument: `{nodes: [{path, tools}]}`) and
 * answers each call with a short stand-in result: the tools are real APIs'
 * definitions that cannot be called here. What a benchmark measures with it
 * is what the definitions cost a model, not what the calls return.
 */
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

interface FleetTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
}
interface Fleet {
  nodes: { path: string; tools: FleetTool[] }[];
}

const [file, limit = "600"] = process.argv.slice(2);
const fleet = JSON.parse(readFileSync(file!, "utf8")) as Fleet;
const taken = new Set<string>();
/** A name of at most 64 characters, made unique where cutting it made two alike. */
const unique = (name: string) => {
  let candidate = name.slice(0, 64);
  for (let n = 2; taken.has(candidate); n++) candidate = `${name.slice(0, 60)}_${n}`;
  taken.add(candidate);
  return candidate;
};
const tools = fleet.nodes
  .flatMap((node) =>
    node.tools.map((tool) => ({
      name: unique(`${node.path.slice(1).replace(/[^A-Za-z0-9_-]/g, "_")}__${tool.name}`),
      description: tool.description ?? "",
      inputSchema: { type: "object" as const, ...(tool.inputSchema ?? {}) },
    })),
  )
  .slice(0, Number(limit));

const server = new Server({ name: "fleet", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler("tools/list", async () => ({ tools }));
server.setRequestHandler("tools/call", async (request) => ({
  content: [{ type: "text", text: JSON.stringify({ ok: true, tool: request.params.name }) }],
}));
await server.connect(new StdioServerTransport());
