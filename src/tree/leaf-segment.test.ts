import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasInvisibleCharacters, leafSegment } from "./leaf-segment.js";
import { fuzzRuns } from "../../test/helpers/fuzz.js";

describe("leafSegment", () => {
  it("keeps a name of MCP's alphabet as it is", () => {
    for (const name of ["echo", "get-sum", "fs.read_file", "A1"]) {
      expect(leafSegment(name)).toEqual({ segment: name, escaped: false });
    }
  });

  it("escapes what would climb, nest, vanish or deceive, visibly", () => {
    const escaped = (name: string) => leafSegment(name).segment;
    expect(escaped("")).toMatch(/^-[0-9a-f]{8}$/);
    expect(escaped("../x")).toMatch(/^__x-[0-9a-f]{8}$/);
    expect(escaped("a/b")).toMatch(/^a_b-[0-9a-f]{8}$/);
    expect(escaped("good\u202Egnp.exe")).toMatch(/^good_gnp\.exe-[0-9a-f]{8}$/);
    expect(escaped("\u0440\u0430\u0443\u0440\u0430l")).toMatch(/^_____l-[0-9a-f]{8}$/);
    expect(escaped("..")).toMatch(/^_-[0-9a-f]{8}$/);
  });

  it("always gives one safe segment, and different names different segments (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.string({ unit: "binary" }),
        (a, b) => {
          const { segment } = leafSegment(a);
          expect(segment).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
          expect([".", ".."]).not.toContain(segment);
          if (a !== b) expect(leafSegment(b).segment).not.toBe(segment);
        },
      ),
      { numRuns: fuzzRuns(500) },
    );
  });

  it("tells names holding invisible characters", () => {
    expect(hasInvisibleCharacters("good\u202Egnp")).toBe(true);
    expect(hasInvisibleCharacters("zero\u200Bwidth")).toBe(true);
    expect(hasInvisibleCharacters("tab\there")).toBe(true);
    expect(hasInvisibleCharacters("\u0440\u0430\u0443\u0440\u0430l")).toBe(false);
  });
});
