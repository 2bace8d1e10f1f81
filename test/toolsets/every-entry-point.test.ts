import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp } from "../helpers/mcp-client.js";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** The nine functions of the tool registry protocol's predefined tools, each through /rpc, meta_call and MCP. */
let broker: TestBroker;
let client: Client;
let images: Server;
let notes: string;

beforeAll(async () => {
  notes = mkdtempSync(join(tmpdir(), "mcp-broker-nine-"));
  writeFileSync(
    join(notes, "river.md"),
    "# The Rhine\n\nThe Rhine flows past Basel, Cologne and Rotterdam.",
  );
  images = createServer((req, res) => {
    req.resume();
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ images: [PNG] }));
  });
  await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", resolve));
  broker = await startBroker({
    expose: "flat",
    tree: [],
    toolsets: {
      search: { folders: [notes] },
      documents: { roots: [notes] },
      images: {
        provider: "automatic1111",
        url: `http://127.0.0.1:${(images.address() as AddressInfo).port}`,
      },
    },
  });
  client = await connectHttp(broker.url);
});
afterAll(async () => {
  await client?.close();
  await broker?.close();
  await new Promise<void>((resolve) => images.close(() => resolve()));
});

const doc = () => pathToFileURL(join(notes, "river.md")).href;

/** tool, function, arguments, and what each answer's data must hold. */
const NINE: [string, string, () => Record<string, unknown>, (data: any) => void][] = [
  ["calculator", "calculate", () => ({ expression: "2^10" }), (d) => expect(d.result).toBe(1024)],
  [
    "calculator",
    "convert_units",
    () => ({ value: 1, from_unit: "kg", to_unit: "g" }),
    (d) => expect(d.value).toBe(1000),
  ],
  [
    "time_tool",
    "current_time",
    () => ({ timezone: "Asia/Kolkata" }),
    (d) => expect(d.utc_offset).toBe("+05:30"),
  ],
  [
    "time_tool",
    "time_difference",
    () => ({ start_time: "2024-01-01", end_time: "2024-01-03", unit: "days" }),
    (d) => expect(d.difference).toBe(2),
  ],
  [
    "document_analyzer",
    "extract_text",
    () => ({ document_url: doc() }),
    (d) => expect(d.text).toContain("Cologne"),
  ],
  [
    "document_analyzer",
    "analyze_document",
    () => ({ document_url: doc(), analysis_type: "entities" }),
    (d) => expect(d.places.map((p: { text: string }) => p.text)).toContain("Cologne"),
  ],
  [
    "search_tool",
    "web_search",
    () => ({ query: "rhine" }),
    (d) => expect(d.results[0].title).toBe("The Rhine"),
  ],
  [
    "search_tool",
    "news_search",
    () => ({ query: "rotterdam", days_back: 1 }),
    (d) => expect(d.results).toHaveLength(1),
  ],
  [
    "image_generator",
    "generate_image",
    () => ({ prompt: "a barge" }),
    (d) => expect(d.image).toEqual({ data: PNG, mime_type: "image/png" }),
  ],
];

describe("every predefined function", () => {
  it.each(NINE)("%s.%s answers through /rpc, meta_call and MCP", async (tool, fn, args, check) => {
    const rpc = await broker.post("/rpc", {
      jsonrpc: "2.0",
      method: "tools/call",
      params: { tool_name: tool, function_name: fn, arguments: args() },
      id: 1,
    });
    expect(rpc.body.result?.status, JSON.stringify(rpc.body)).toBe("completed");
    check(rpc.body.result.data);

    const rest = await broker.post("/meta_call", { path: `/registry/${tool}/${fn}`, args: args() });
    expect(rest.body.is_error, JSON.stringify(rest.body)).toBe(false);
    check(rest.body.output.structuredContent);

    const mcp = await client.callTool({ name: `registry__${tool}__${fn}`, arguments: args() });
    expect(mcp.isError ?? false).toBe(false);
    check(mcp.structuredContent);
  });
});
