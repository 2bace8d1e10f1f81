import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyze } from "../../src/tool-search/analyze.js";
import { fuzzRuns } from "../helpers/fuzz.js";

describe("analyze", () => {
  it("splits identifiers into their words, whatever the case convention", () => {
    expect(analyze("getFileContents list_issues create-branch getHTTPResponse")).toEqual([
      "file",
      "content",
      "list",
      "issu",
      "creat",
      "branch",
      "http",
      "respons",
    ]);
  });

  it("drops stop words and request filler, and stems English words to one term", () => {
    expect(analyze("can you please check tomorrow's weather in Lyon")).toEqual([
      "check",
      "tomorrow",
      "weather",
      "lyon",
    ]);
    expect(analyze("translation")).toEqual(analyze("translating"));
    expect(analyze("repositories")).toEqual(analyze("repository"));
  });

  it("finds words in scripts written without spaces, and their bigrams", () => {
    const terms = analyze("获取天气预报");
    expect(terms).toContain("天气");
    expect(terms).toContain("预报");
    expect(analyze("天気予報を取得する")).toContain("天気");
    // A run the segmenter keeps whole is still found by a part of it.
    expect(analyze("東京都庁舎")).toEqual(expect.arrayContaining(["東京", "庁舎"]));
  });

  it("collects the English words as written when asked", () => {
    const words: string[] = [];
    analyze("Translate documents_quickly 天气", words);
    expect(words).toEqual(["translate", "documents", "quickly"]);
  });

  it("gives non-empty terms without spaces for any text, which the index joins by spaces", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        for (const term of analyze(text)) {
          expect(term.length).toBeGreaterThan(0);
          expect(term).not.toMatch(/\s/u);
        }
      }),
      { seed: 31, numRuns: fuzzRuns(500) },
    );
  });

  it("takes empty, regex-like and huge text as text, in time linear in its length", () => {
    expect(analyze("")).toEqual([]);
    expect(analyze(".*+?^${}()|[]\\ (ab+)+$ [a-z]{2,}")).toEqual(["ab", "2"]);
    // A query of the longest kind the broker searches, many times over: no backtracking blow-up.
    for (const text of ["a".repeat(100_000), "aA1_".repeat(25_000), "(a+)+".repeat(20_000)]) {
      const started = performance.now();
      expect(Array.isArray(analyze(text))).toBe(true);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});
