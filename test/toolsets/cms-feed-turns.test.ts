import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemo } from "../../src/toolsets/emcp/demo/generate.js";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import { CmsFeed } from "../../src/toolsets/web-search/cms-feed.js";
import { TextIndex } from "../../src/toolsets/web-search/text-index.js";

/** Enough documents that reading their HTML in one go would hold the event loop for long. */
const DOCUMENTS = 800;
let database: string;

beforeAll(async () => {
  database = `sqlite:${join(mkdtempSync(join(tmpdir(), "mcp-broker-feed-")), "evo.sqlite")}`;
  const opened = openDatabase(database);
  await generateDemo(opened, "evo_", DOCUMENTS);
  await opened.db.destroy();
});

describe("the CMS feed at start", () => {
  let feed: CmsFeed | undefined;
  afterAll(() => feed?.close());

  it("reads every document while the event loop keeps turning", async () => {
    const index = new TextIndex();
    let turns = 0;
    let turning = true;
    const turn = () => {
      turns++;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    // The turns between the first document going in and the last: read in one go (every
    // await a microtask), none; in slices of 8 ms, one after each.
    const put = index.put.bind(index);
    let first: number | undefined;
    let last = 0;
    index.put = (text) => {
      first ??= turns;
      last = turns;
      put(text);
    };
    feed = new CmsFeed({ database }, index, pino({ level: "silent" }));
    await index.search({ query: "anything", limit: 1, signal: new AbortController().signal });
    turning = false;
    // Most of the demo's documents are published; every one of those is in.
    expect(index.size).toBeGreaterThan(DOCUMENTS / 2);
    expect(last - first!).toBeGreaterThan(1);
  });
});
