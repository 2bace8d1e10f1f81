import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { topNodesText } from "./top-nodes.js";
import { fuzzRuns } from "../../../test/helpers/fuzz.js";

describe("the top of the tree in a meta tool's description", () => {
  it("names each entry with the start of its summary, and counts what did not fit", () => {
    const entries = [
      { name: "cms", summary: "Evolution CMS: documents, templates and users." },
      { name: "github", summary: "Issues, pull requests and code of your repositories" },
      { name: "fx" },
    ];
    expect(topNodesText(entries, 600)).toBe(
      "Holds: cms (Evolution CMS); github (Issues, pull requests and code of your repositories); fx.",
    );
    // Where whole summaries do not fit, every one is cut shorter before any is left out.
    expect(topNodesText(entries, 75)).toBe(
      "Holds: cms (Evolution CMS); github (Issues, pull requests and…); fx.",
    );
    expect(topNodesText(entries, 60)).toBe(
      "Holds: cms (Evolution CMS); github (Issues, pull…); fx.",
    );
    expect(topNodesText(entries, 45)).toBe("Holds: cms (Evolution CMS); and 2 more.");
    expect(topNodesText(entries, 30)).toBe("Holds: cms; and 2 more.");
    expect(topNodesText(entries, 600, false)).toBe("Holds: cms; github; fx.");
    expect(topNodesText([], 600)).toBe("");
  });

  it("never passes its budget in bytes, whatever the names and summaries", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.string({ minLength: 1, maxLength: 30, unit: "grapheme" }),
            summary: fc.option(fc.string({ maxLength: 300, unit: "grapheme" }), { nil: undefined }),
          }),
          { maxLength: 100 },
        ),
        fc.integer({ min: 0, max: 800 }),
        (entries, budget) => {
          const text = topNodesText(entries, budget);
          expect(Buffer.byteLength(text)).toBeLessThanOrEqual(budget);
          if (entries.length > 0 && budget >= 40) expect(text).toMatch(/^Holds/);
        },
      ),
      { numRuns: fuzzRuns(500) },
    );
  });
});
