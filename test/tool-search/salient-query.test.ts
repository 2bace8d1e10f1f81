import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { salientQuery } from "../../src/tool-search/salient-query.js";
import { fuzzRuns } from "../helpers/fuzz.js";

describe("the salient part of a long request", () => {
  it("leaves a request within the limit as it is", () => {
    expect(salientQuery("read a file", 1000)).toEqual({ text: "read a file" });
  });

  it("drops pasted data and keeps the words around it, saying so", () => {
    const image = `data:image/png;base64,${"iVBORw0KGgo".repeat(2000)}`;
    const found = salientQuery(`describe this picture ${image} and send it by mail`, 1000);
    expect(found.text).toBe("describe this picture and send it by mail");
    expect(found.notice).toMatch(/22\d{3} characters: searched on its words, without runs/);
  });

  it("keeps the beginning and the end of a long text, cut between words", () => {
    const document = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(" ");
    const found = salientQuery(`translate to French: ${document} then save it`, 1000);
    expect(found.text.length).toBeLessThanOrEqual(1000);
    expect(found.text.startsWith("translate to French: word0 word1")).toBe(true);
    expect(found.text.endsWith("then save it")).toBe(true);
    expect(found.text).not.toMatch(/ord\d+ ord|^\S*ord/);
    expect(found.notice).toMatch(/first and last 499/);
  });

  it("never passes the limit nor throws, whatever the text", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 5000, unit: "binary" }),
        fc.integer({ min: 10, max: 2000 }),
        (text, max) => {
          const found = salientQuery(text, max);
          expect(found.text.length).toBeLessThanOrEqual(max);
          if (text.length <= max) expect(found.text).toBe(text);
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });
});
