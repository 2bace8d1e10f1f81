import { mkdtempSync, utimesSync, writeFileSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";

/**
 * A stand-in SearXNG on loopback answering its real JSON API
 * (`GET /search?q=…&format=json[&categories=news&time_range=…]`), with the
 * instance's failures: 403 when the json format is off, 500, and a hang.
 */
let searx: Server;
let searxUrl: string;
const asked: URLSearchParams[] = [];
let mode: "ok" | "forbidden" | "broken" | "hang" = "ok";

let folder: string;
const brokers: TestBroker[] = [];
let withSearx: TestBroker;
let offline: TestBroker;

beforeAll(async () => {
  searx = createServer((req, res) => {
    const params = new URL(req.url!, "http://x").searchParams;
    asked.push(params);
    if (mode === "hang") return;
    if (mode === "forbidden" || mode === "broken") {
      res.writeHead(mode === "forbidden" ? 403 : 500, { "content-type": "text/html" });
      return res.end("<h1>error</h1>");
    }
    const now = Date.now();
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        query: params.get("q"),
        number_of_results: 30,
        results: Array.from({ length: 30 }, (_, i) => ({
          url: `https://news.example/${i}`,
          title: `${params.get("q")} story ${i}`,
          content: `About ${params.get("q")}, part ${i}`,
          engine: "duckduckgo",
          publishedDate: new Date(now - i * 86_400_000).toISOString(),
        })),
        answers: [],
        suggestions: [],
      }),
    );
  });
  await new Promise<void>((resolve) => searx.listen(0, "127.0.0.1", resolve));
  searxUrl = `http://127.0.0.1:${(searx.address() as AddressInfo).port}/`;

  folder = mkdtempSync(join(tmpdir(), "mcp-broker-search-"));
  mkdirSync(join(folder, "guides"));
  writeFileSync(
    join(folder, "guides", "kayak.md"),
    "# Kayaking the Danube\n\nPaddle from Passau to Vienna in ten days.",
  );
  writeFileSync(
    join(folder, "bread.html"),
    "<html><head><title>Sourdough basics</title><script>var kayak = 1</script></head><body><p>Feed the starter daily.</p></body></html>",
  );
  writeFileSync(join(folder, "old.txt"), "An old note about the Danube delta.");
  const longAgo = new Date(Date.now() - 60 * 86_400_000);
  utimesSync(join(folder, "old.txt"), longAgo, longAgo);

  withSearx = await startBroker({
    tree: [],
    toolsets: { search: { searxng_url: searxUrl, timeout_s: 0.5 } },
  });
  offline = await startBroker({ tree: [], toolsets: { search: { folders: [folder] } } });
  brokers.push(withSearx, offline);
});
afterAll(async () => {
  await Promise.all(brokers.map((b) => b.close()));
  searx.closeAllConnections();
  await new Promise<void>((resolve) => searx.close(() => resolve()));
});

let nextId = 1;
async function call(broker: TestBroker, fn: string, args: object) {
  return (
    await broker.post("/rpc", {
      jsonrpc: "2.0",
      method: "tools/call",
      params: { tool_name: "search_tool", function_name: fn, arguments: args },
      id: nextId++,
    })
  ).body;
}

describe("search_tool with SearXNG", () => {
  it("answers web_search in the protocol's shape, honouring max_results", async () => {
    mode = "ok";
    const { result } = await call(withSearx, "web_search", { query: "danube", max_results: 3 });
    expect(result.data.provider).toBe("searxng");
    expect(result.data.results).toHaveLength(3);
    expect(result.data.results[0]).toMatchObject({
      title: "danube story 0",
      url: "https://news.example/0",
      snippet: "About danube, part 0",
    });
    expect(asked.at(-1)!.get("format")).toBe("json");
    const defaults = await call(withSearx, "web_search", { query: "danube" });
    expect(defaults.result.data.results).toHaveLength(5);
    for (const max_results of [0, 21, 2.5]) {
      const { error } = await call(withSearx, "web_search", { query: "danube", max_results });
      expect(error?.code, String(max_results)).toBe(-32004);
      expect(error.data.details).toMatch(
        /max_results.*(whole number from 1 to 20|must be integer)/,
      );
    }
  });

  it("answers news_search from the news category, within days_back", async () => {
    mode = "ok";
    // Ages are measured from before the call: the tool's cut-off is later, never earlier.
    const before = Date.now();
    const { result } = await call(withSearx, "news_search", { query: "election", days_back: 3 });
    expect(asked.at(-1)!.get("categories")).toBe("news");
    expect(asked.at(-1)!.get("time_range")).toBe("week");
    expect(result.data.days_back).toBe(3);
    const ages = result.data.results.map(
      (r: { published: string }) => (before - Date.parse(r.published)) / 86_400_000,
    );
    expect(ages.length).toBeGreaterThan(0);
    for (const age of ages) expect(age).toBeLessThanOrEqual(3);
  });

  it("says what went wrong when the instance fails or hangs: -32006", async () => {
    mode = "forbidden";
    const forbidden = await call(withSearx, "web_search", { query: "x" });
    expect(forbidden.error).toMatchObject({ code: -32006 });
    expect(forbidden.error.data.details).toContain("is the json format enabled");
    mode = "broken";
    expect((await call(withSearx, "web_search", { query: "x" })).error.data.details).toContain(
      "HTTP 500",
    );
    mode = "hang";
    const started = Date.now();
    const hung = await call(withSearx, "web_search", { query: "x" });
    expect(hung.error.data.details).toContain("no answer within 0.5 s");
    expect(Date.now() - started).toBeLessThan(3000);
    mode = "ok";
  });
});

describe("search_tool offline, over local folders", () => {
  it("finds files by their words, title first, with a snippet", async () => {
    const { result } = await call(offline, "web_search", { query: "danube" });
    expect(result.data.provider).toBe("local");
    const titles = result.data.results.map((r: { title: string }) => r.title);
    expect(titles[0]).toBe("Kayaking the Danube");
    expect(titles).toContain("old.txt");
    expect(result.data.results[0].url).toMatch(/^file:\/\/.*kayak\.md$/);
    expect(result.data.results[0].snippet).toContain("Danube");
  });

  it("reads HTML as its readable text: no scripts", async () => {
    expect(
      (await call(offline, "web_search", { query: "starter" })).result.data.results[0].title,
    ).toBe("Sourdough basics");
    expect(
      (await call(offline, "web_search", { query: "kayak" })).result.data.results.map(
        (r: { title: string }) => r.title,
      ),
    ).not.toContain("Sourdough basics");
  });

  it("keeps only recent files for news_search", async () => {
    const { result } = await call(offline, "news_search", { query: "danube", days_back: 7 });
    expect(result.data.results.map((r: { title: string }) => r.title)).toEqual([
      "Kayaking the Danube",
    ]);
  });

  it("sees a new file and a changed one within a second or two", async () => {
    writeFileSync(join(folder, "guides", "alps.md"), "# Crossing the Alps\n\nBring crampons.");
    await expect
      .poll(
        async () =>
          (await call(offline, "web_search", { query: "crampons" })).result.data.results.length,
        { timeout: 5000 },
      )
      .toBe(1);
    writeFileSync(join(folder, "guides", "alps.md"), "# Crossing the Alps\n\nBring snowshoes.");
    await expect
      .poll(
        async () =>
          (await call(offline, "web_search", { query: "snowshoes" })).result.data.results.length,
        { timeout: 5000 },
      )
      .toBe(1);
    expect(
      (await call(offline, "web_search", { query: "crampons" })).result.data.results,
    ).toHaveLength(0);
  });
});

describe("search_tool without a provider", () => {
  it("answers -32006 saying how to configure one", async () => {
    const bare = await startBroker({ tree: [] });
    brokers.push(bare);
    const { error } = await call(bare, "web_search", { query: "anything" });
    expect(error).toMatchObject({ code: -32006 });
    expect(error.data.details).toContain("set toolsets.search.searxng_url");
  });
});
