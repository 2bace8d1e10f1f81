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
    let last = performance.now();
    let longest = 0;
    let turning = true;
    const turn = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    const started = performance.now();
    feed = new CmsFeed({ database }, index, pino({ level: "silent" }));
    await index.search({ query: "anything", limit: 1, signal: new AbortController().signal });
    turning = false;
    turn();
    const took = performance.now() - started;
    // Most of the demo's documents are published; every one of those is in.
    expect(index.size).toBeGreaterThan(DOCUMENTS / 2);
    // Read in one go, the documents held the loop for all of `took`; in slices, a turn
    // came every few milliseconds (some slack for a garbage collection on a busy machine).
    expect(longest).toBeLessThan(Math.max(100, took / 4));
  });
});
