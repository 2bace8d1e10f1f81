import { readFileSync } from "node:fs";
import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { ToolSearch } from "../../src/tool-search/tool-search.js";
import { Thesaurus } from "../../src/tool-search/thesaurus.js";
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";
import { searchableFleet, type FleetServer, type Query } from "../../bench/tool-search/fleet.js";
import { mean, recallAt } from "../../bench/tool-search/retrieval-metrics.js";
import { silent } from "../helpers/broker.js";

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/tool-search/${name}`, import.meta.url), "utf8"),
  ) as unknown;
const fleet = fixture("fleet.json") as FleetServer[];
const queries = fixture("queries.json") as Query[];
const tools = searchableFleet(fleet);

const everything = () => true;

async function ranked(search: ToolSearch, query: string, limit = 5): Promise<string[]> {
  return (await search.search({ query, limit, accepts: everything })).map((h) => h.path);
}

function tool(path: string, description: string, name = path.split("/").at(-1)!): SearchableTool {
  return { path, name, description, parameters: "", context: "" };
}

describe("ToolSearch ranking, on 229 real tools of 12 servers and 98 requests", () => {
  it("puts a right tool in the first five for most requests, above plain BM25 and names alone", async () => {
    const search = new ToolSearch({ log: silent, thesaurus: new Thesaurus() });
    search.update(tools);
    await search.settled();
    const baseline = (fields: (keyof SearchableTool)[]) => {
      const index = new MiniSearch<SearchableTool>({ idField: "path", fields });
      index.addAll(tools);
      return (query: string) => index.search(query, { prefix: true }).map((r) => r.id as string);
    };
    const byNames = baseline(["name"]);
    const plainBm25 = baseline(["name", "description"]);

    const recall = { ours: [] as number[], names: [] as number[], plain: [] as number[] };
    for (const q of queries) {
      recall.ours.push(recallAt(5, { ranked: await ranked(search, q.query), correct: q.tools }));
      recall.names.push(recallAt(5, { ranked: byNames(q.query), correct: q.tools }));
      recall.plain.push(recallAt(5, { ranked: plainBm25(q.query), correct: q.tools }));
    }
    const ours = mean(recall.ours);
    expect(ours).toBeGreaterThanOrEqual(0.85);
    expect(ours).toBeGreaterThan(mean(recall.names) + 0.1);
    expect(ours).toBeGreaterThan(mean(recall.plain) + 0.1);
  });

  it("answers typical requests with the tool a person would pick first", async () => {
    const search = new ToolSearch({ log: silent });
    search.update(tools);
    expect((await ranked(search, "post a message to the #general channel"))[0]).toBe(
      "/slack/slack_post_message",
    );
    expect((await ranked(search, "translate this paragraph into German"))[0]).toBe(
      "/lara/translate",
    );
    expect((await ranked(search, "why is my pod crashing, show its logs"))[0]).toBe(
      "/kubernetes/kubectl_logs",
    );
    expect(await ranked(search, "draw a pie chart of our market share", 1)).toEqual([
      "/charts/generate_pie_chart",
    ]);
  });

  it("forgives a typo or a part of a word the index does not hold", async () => {
    const search = new ToolSearch({ log: silent });
    search.update(tools);
    expect(await ranked(search, "wether forcast")).toContain("/open-meteo/weather_forecast");
    expect(await ranked(search, "kubect logs")).toContain("/kubernetes/kubectl_logs");
    // Two neighbouring letters swapped, in a short word and a long one.
    expect((await ranked(search, "kubectl lgos"))[0]).toBe("/kubernetes/kubectl_logs");
    expect((await ranked(search, "pod lgos"))[0]).toBe("/kubernetes/kubectl_logs");
    expect(await ranked(search, "weahter")).toContain("/open-meteo/weather_forecast");
  });

  it("gives only what the caller accepts, and no more than the limit", async () => {
    const search = new ToolSearch({ log: silent });
    search.update(tools);
    const hits = await search.search({
      query: "list things",
      limit: 3,
      accepts: (p) => p.startsWith("/github/"),
    });
    expect(hits).toHaveLength(3);
    for (const hit of hits) expect(hit.path).toMatch(/^\/github\//);
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[2]!.score);
    expect(await search.search({ query: "weather", limit: 5, accepts: () => false })).toEqual([]);
  });

  it("finds nothing for a request with no word any tool has", async () => {
    const search = new ToolSearch({ log: silent });
    search.update(tools);
    expect(await ranked(search, "the of and")).toEqual([]);
    expect(await ranked(search, "qqqzzzx")).toEqual([]);
  });
});

describe("WordNet synonyms", () => {
  const gallery = [
    tool("/art/generate_image", "Generate an image from a prompt"),
    tool("/files/remove_file", "Delete a file from disk"),
    tool("/mail/send_message", "Send an email message"),
  ];

  it("find a tool by a word it does not use but a synonym of one it does", async () => {
    const withSynonyms = new ToolSearch({ log: silent, thesaurus: new Thesaurus() });
    withSynonyms.update(gallery);
    await withSynonyms.settled();
    const without = new ToolSearch({ log: silent });
    without.update(gallery);

    expect(await ranked(without, "make a picture of a cat")).toEqual([]);
    expect((await ranked(withSynonyms, "make a picture of a cat"))[0]).toBe("/art/generate_image");
  });

  it("leave a word the index has to itself", async () => {
    const search = new ToolSearch({ log: silent, thesaurus: new Thesaurus() });
    search.update(gallery);
    await search.settled();
    // "image" is in the index: its synonym "picture" is not asked for, so nothing else comes.
    expect(await ranked(search, "image")).toEqual(["/art/generate_image"]);
  });
});

describe("what a tool is found by", () => {
  it("its parameters and its place in the tree count, its name most", async () => {
    const search = new ToolSearch({ log: silent });
    search.update([
      {
        path: "/shop/orders/list",
        name: "list",
        description: "Lists records",
        parameters: "since ISO date of the oldest order",
        context: "shop orders Orders of the web shop",
      },
      tool("/mail/archive_mail", "Moves things away"),
      tool("/mail/settings", "The settings of the mail archive"),
    ]);
    expect(await ranked(search, "orders of the shop")).toEqual(["/shop/orders/list"]);
    expect((await ranked(search, "oldest ISO date"))[0]).toBe("/shop/orders/list");
    expect(await ranked(search, "archive mail")).toEqual(["/mail/archive_mail", "/mail/settings"]);
  });
});

describe("keeping the index current", () => {
  it("adds, changes and removes tools without rebuilding the rest", async () => {
    const search = new ToolSearch({ log: silent });
    const a = tool("/a/forecast", "Weather forecast for a city");
    const b = tool("/b/translate", "Translate text between languages");
    search.update([a, b]);
    expect(search.size).toBe(2);
    expect(await ranked(search, "weather")).toEqual(["/a/forecast"]);

    search.update([{ ...a, description: "Tide tables for a harbour" }, b]);
    expect(await ranked(search, "weather")).toEqual([]);
    expect(await ranked(search, "tides")).toEqual(["/a/forecast"]);

    search.update([b, tool("/c/geocode", "Coordinates of a place")]);
    expect(search.size).toBe(2);
    expect(await ranked(search, "tides")).toEqual([]);
    expect(await ranked(search, "coordinates")).toEqual(["/c/geocode"]);
  });

  it("follows a change of a thousand tools in well under a second", async () => {
    const search = new ToolSearch({ log: silent });
    const many = Array.from({ length: 5 }, (_, i) => searchableFleet(fleet, `/copy${i}`)).flat();
    search.update(many);
    // The first index of these is built in the background.
    await search.settled();
    const started = performance.now();
    search.update([...many.slice(100), tool("/new/quasar", "Observe a quasar")]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await ranked(search, "quasar")).toEqual(["/new/quasar"]);
  });
});

describe("ToolSearch's first index of many tools", () => {
  it("is built in slices in the background: searches answer meanwhile and say it is warming", async () => {
    const many = Array.from({ length: 20 }, (_, i) =>
      tools.map((t) => ({ ...t, path: `/copy${i}${t.path}` })),
    ).flat();
    const search = new ToolSearch({ log: silent });
    search.update(many);
    // update returned at once: the slices are still to come.
    expect(search.warming).toEqual({ indexed: expect.any(Number), total: many.length });
    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    const early = await search.search({ query: "weather forecast", limit: 5, accepts: everything });
    expect(early.length).toBeLessThanOrEqual(5);
    await search.settled();
    clearInterval(counting);
    expect(search.warming).toBeUndefined();
    expect(search.size).toBe(many.length);
    // The event loop turned between slices.
    expect(turns).toBeGreaterThan(3);
    const paths = await ranked(search, "weather forecast", 50);
    expect(paths.some((p) => p.startsWith("/copy19/"))).toBe(true);
  });
});

describe("ToolSearch for a caller who sees part of the tree", () => {
  it("ranks among what that caller may see as an index of only those tools would", async () => {
    const mine = tools.filter((_, i) => i % 3 !== 0);
    const mayCall = new Set(mine.map((t) => t.path));
    const shared = new ToolSearch({ log: silent });
    shared.update(tools);
    const own = new ToolSearch({ log: silent });
    own.update(mine);
    const caller = { key: "some scopes", may: (path: string) => mayCall.has(path) };
    for (const query of queries.slice(0, 40).map((q) => q.query)) {
      const seen = await shared.search({
        query,
        limit: 10,
        accepts: (p) => mayCall.has(p),
        caller,
      });
      const alone = await own.search({ query, limit: 10, accepts: everything });
      expect(seen.map((h) => h.path)).toEqual(alone.map((h) => h.path));
      seen.forEach((hit, i) => expect(hit.score).toBeCloseTo(alone[i]!.score, 9));
    }
    // Without a caller, the others' tools count: the scores differ.
    const query = queries[0]!.query;
    const counted = await shared.search({ query, limit: 1, accepts: (p) => mayCall.has(p) });
    const alone = await own.search({ query, limit: 1, accepts: everything });
    expect(counted[0]!.score).not.toBeCloseTo(alone[0]!.score, 9);
  });
});

describe("a hit that requires an id", () => {
  const tmdb = [
    {
      ...tool("/tmdb/movie_credits", "Get the cast and crew of a movie: actors and director"),
      requiredParameters: ["movie_id"],
    },
    tool(
      "/tmdb/search_movie",
      "Search for movies by their original, translated and alternative titles",
    ),
    tool("/tmdb/tv_credits", "Get the cast and crew of a TV show"),
  ];

  it("is followed by the tool that finds that id, which says for what", async () => {
    const search = new ToolSearch({ log: silent });
    search.update(tmdb);
    const hits = await search.search({
      query: "who directed Titanic",
      limit: 5,
      accepts: everything,
    });
    expect(hits.map((h) => h.path)).toEqual(["/tmdb/movie_credits", "/tmdb/search_movie"]);
    expect(hits[1]).toMatchObject({
      score: hits[0]!.score,
      prerequisiteOf: { path: "/tmdb/movie_credits", parameter: "movie_id" },
    });
  });

  it("follows a tool whose parameters become required, and stop being", async () => {
    const search = new ToolSearch({ log: silent });
    const optional = tmdb.map((t) => ({ ...t, requiredParameters: [] }));
    search.update(optional);
    const query = { query: "who directed Titanic", limit: 5, accepts: everything };
    expect((await search.search(query)).map((h) => h.path)).toEqual(["/tmdb/movie_credits"]);
    search.update(tmdb);
    expect((await search.search(query)).map((h) => h.path)).toEqual([
      "/tmdb/movie_credits",
      "/tmdb/search_movie",
    ]);
    search.update(optional);
    expect((await search.search(query)).map((h) => h.path)).toEqual(["/tmdb/movie_credits"]);
  });

  it("is not followed by a finder the caller may not have, nor past the limit", async () => {
    const search = new ToolSearch({ log: silent });
    search.update(tmdb);
    const query = "who directed Titanic";
    const notSearch = (path: string) => path !== "/tmdb/search_movie";
    expect(
      (await search.search({ query, limit: 5, accepts: notSearch })).map((h) => h.path),
    ).toEqual(["/tmdb/movie_credits"]);
    expect(
      (await search.search({ query, limit: 1, accepts: everything })).map((h) => h.path),
    ).toEqual(["/tmdb/movie_credits"]);
  });
});
