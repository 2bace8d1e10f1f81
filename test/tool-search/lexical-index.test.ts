import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LexicalIndex } from "../../src/tool-search/lexical-index.js";
import type { SearchableTool } from "../../src/tool-search/searchable-tool.js";
import { fuzzRuns } from "../helpers/fuzz.js";

const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "issue",
  "create",
  "list",
  "weather",
  "translate",
];

function tool(path: string, words: readonly string[]): SearchableTool {
  return {
    path,
    name: words.slice(0, 2).join("_"),
    description: words.join(" "),
    parameters: words.slice(1).join(" "),
    context: words.slice(-1).join(" "),
  };
}

const terms = (...words: string[]) => words.map((term) => ({ term, weight: 1 }));

describe("the lexical index", () => {
  it("answers after any adds and removes as an index of what is left would", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            path: fc.constantFrom("/a", "/b", "/c", "/d", "/e"),
            words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }),
            remove: fc.boolean(),
          }),
          { maxLength: 30 },
        ),
        fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }),
        (operations, query) => {
          const churned = new LexicalIndex();
          const left = new Map<string, SearchableTool>();
          for (const op of operations) {
            if (op.remove) {
              churned.remove(op.path);
              left.delete(op.path);
            } else {
              churned.put(tool(op.path, op.words));
              left.set(op.path, tool(op.path, op.words));
            }
          }
          const fresh = new LexicalIndex();
          for (const t of left.values()) fresh.put(t);
          const a = churned.search(terms(...query));
          const b = fresh.search(terms(...query));
          expect(a.map((h) => h.path)).toEqual(b.map((h) => h.path));
          a.forEach((hit, i) => expect(hit.score).toBeCloseTo(b[i]!.score, 9));
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });

  it("drops removed tools' postings once they are many, and still answers the same", () => {
    const churned = new LexicalIndex();
    const fresh = new LexicalIndex();
    for (let i = 0; i < 3000; i++)
      churned.put(tool(`/n/t${i}`, [WORDS[i % 9]!, WORDS[(i * 7) % 9]!]));
    for (let i = 0; i < 2500; i++) churned.remove(`/n/t${i}`);
    for (let i = 2500; i < 3000; i++)
      fresh.put(tool(`/n/t${i}`, [WORDS[i % 9]!, WORDS[(i * 7) % 9]!]));
    expect(churned.size).toBe(500);
    const query = terms("gamma", "weather");
    expect(churned.search(query)).toEqual(fresh.search(query));
  });
});
