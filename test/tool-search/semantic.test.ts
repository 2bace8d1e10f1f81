import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbeddingsClient } from "../../src/tool-search/embeddings-client.js";
import { SemanticIndex } from "../../src/tool-search/semantic-index.js";
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";
import { ToolSearch } from "../../src/tool-search/tool-search.js";
import { MemoryStore } from "../../src/state/memory.js";
import { RedisStore } from "../../src/state/redis.js";
import type { StateStore } from "../../src/state/store.js";
import { capturingLogger, silent } from "../helpers/broker.js";
import { startEmbeddingsServer, type EmbeddingsServer } from "../helpers/embeddings-server.js";
import { REDIS_URL, redisAvailable } from "../helpers/services.js";

const hasRedis = await redisAvailable();

let engine: EmbeddingsServer;
beforeAll(async () => {
  engine = await startEmbeddingsServer();
});
afterAll(() => engine?.close());

const TOOLS: SearchableTool[] = [
  {
    path: "/meteo/outlook",
    name: "outlook",
    description: "The meteorological outlook for a place",
    parameters: "place",
    context: "meteo",
  },
  {
    path: "/lang/convert_text",
    name: "convert_text",
    description: "Renders text in another language",
    parameters: "text target",
    context: "lang",
  },
  {
    path: "/files/convert_file",
    name: "convert_file",
    description: "Converts a file to another format",
    parameters: "path format",
    context: "files",
  },
];

function searchWith(
  store: StateStore,
  log = silent,
  apiKey?: string,
  semanticWeight?: number,
): ToolSearch {
  const client = new EmbeddingsClient({
    url: engine.url,
    model: "mini-embed",
    apiKey,
    timeoutMs: 5000,
  });
  return new ToolSearch({ log, semantic: new SemanticIndex(client, store, log), semanticWeight });
}

async function ranked(search: ToolSearch, query: string): Promise<string[]> {
  return (await search.search({ query, limit: 3, accepts: () => true })).map((h) => h.path);
}

describe("ranking by meaning, fused with the words", () => {
  it("finds a tool that shares no word with the request", async () => {
    const lexical = new ToolSearch({ log: silent });
    lexical.update(TOOLS);
    expect(await ranked(lexical, "will it rain tomorrow")).toEqual([]);

    const search = searchWith(new MemoryStore());
    search.update(TOOLS);
    await search.settled();
    expect((await ranked(search, "will it rain tomorrow"))[0]).toBe("/meteo/outlook");
    // Both rankings agree on this one; fused, it stays first.
    expect((await ranked(search, "convert a file into another format"))[0]).toBe(
      "/files/convert_file",
    );
  });

  it("weighs the ranking by meaning as configured against the words'", async () => {
    // Both converters share "convert" with the request, and the words put convert_file
    // first; the model relates French to a language.
    const store = new MemoryStore();
    const byWords = searchWith(store, silent, undefined, 0.2);
    const byMeaning = searchWith(store, silent, undefined, 5);
    for (const search of [byWords, byMeaning]) {
      search.update(TOOLS);
      await search.settled();
    }
    expect((await ranked(byWords, "convert this into French"))[0]).toBe("/files/convert_file");
    expect((await ranked(byMeaning, "convert this into French"))[0]).toBe("/lang/convert_text");
  });

  it("speaks the OpenAI wire shape: model, a list of inputs, the key as a bearer", async () => {
    const { log, lines } = capturingLogger();
    const search = searchWith(new MemoryStore(), log, "sk-local-secret");
    search.update(TOOLS);
    await search.settled();
    const request = engine.requests.at(-1)!;
    expect(request.model).toBe("mini-embed");
    expect(Array.isArray(request.input)).toBe(true);
    expect(request.authorization).toBe("Bearer sk-local-secret");
    expect(JSON.stringify(lines())).not.toContain("sk-local-secret");
  });

  it("embeds each tool text once: vectors are kept by content in the state store", async () => {
    const store = new MemoryStore();
    const first = searchWith(store);
    first.update(TOOLS);
    await first.settled();
    const before = engine.texts.length;

    const second = searchWith(store);
    second.update(TOOLS);
    await second.settled();
    expect(engine.texts.length).toBe(before);
    expect((await ranked(second, "will it rain tomorrow"))[0]).toBe("/meteo/outlook");

    // A changed tool is embedded again, alone.
    const beforeChange = engine.texts.length;
    second.update([{ ...TOOLS[0]!, description: "Sunny or not, the forecast" }, ...TOOLS.slice(1)]);
    await second.settled();
    expect(engine.texts.slice(beforeChange)).toEqual([expect.stringContaining("Sunny or not")]);
  });

  it.runIf(hasRedis)("shares vectors between instances through Redis", async () => {
    const prefix = `mcp-broker-test:vectors:${Date.now().toString(36)}:`;
    const stores = [new RedisStore(REDIS_URL, prefix), new RedisStore(REDIS_URL, prefix)];
    try {
      await Promise.all(stores.map((s) => s.ready()));
      const first = searchWith(stores[0]!);
      first.update(TOOLS);
      await first.settled();
      const before = engine.texts.length;
      const second = searchWith(stores[1]!);
      second.update(TOOLS);
      await second.settled();
      expect(engine.texts.length).toBe(before);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("falls back to the words when the engine fails, and says so in the log", async () => {
    const { log, lines } = capturingLogger();
    const search = searchWith(new MemoryStore(), log);
    search.update(TOOLS);
    await search.settled();
    engine.failWith(500);
    try {
      expect((await ranked(search, "convert a file"))[0]).toBe("/files/convert_file");
      expect(await ranked(search, "will it rain tomorrow, really")).toEqual([]);
    } finally {
      engine.failWith(undefined);
    }
    const warning = lines().find((l) => l.msg.includes("ranked by words alone"));
    expect(warning.err).toContain("HTTP 500");
  });

  it("drops a removed tool from the ranking by meaning too", async () => {
    const search = searchWith(new MemoryStore());
    search.update(TOOLS);
    await search.settled();
    search.update(TOOLS.slice(1));
    await search.settled();
    expect(await ranked(search, "will it rain tomorrow")).not.toContain("/meteo/outlook");
  });
});
