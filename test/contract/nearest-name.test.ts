import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nearestName } from "../../src/contract/nearest-name.js";
import { fuzzRuns } from "../helpers/fuzz.js";

describe("nearestName", () => {
  it("names the name a typo, a swap or another case came from, the nearest first", () => {
    expect(nearestName("mesage", ["count", "message"])).toBe("message");
    expect(nearestName("mesasge", ["message", "messages"])).toBe("message");
    expect(nearestName("Path", ["path", "paths"])).toBe("path");
    expect(nearestName("cnt", ["count", "cat"])).toBe("cat");
    expect(nearestName("create_entity", ["create_entities"])).toBe("create_entities");
  });

  it("counts two neighbouring letters swapped as one typo, nearer than two of another name", () => {
    expect(nearestName("evn", ["env", "cwd"])).toBe("env");
    expect(nearestName("Evn", ["env"])).toBe("env");
    expect(nearestName("agrs", ["arts", "args"])).toBe("args");
    expect(nearestName("ab", ["ba"])).toBe("ba");
  });

  it("names nothing far from every name, nor the name itself", () => {
    expect(nearestName("path", ["query", "limit"])).toBeUndefined();
    expect(nearestName("path", ["path"])).toBeUndefined();
    expect(nearestName("x".repeat(65), ["x".repeat(64)])).toBeUndefined();
    expect(nearestName("a", [])).toBeUndefined();
  });

  it("answers any name and names with one of those names, or nothing", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string(), { maxLength: 30 }), (name, names) => {
        const found = nearestName(name, names);
        if (found !== undefined) {
          expect(names).toContain(found);
          expect(found).not.toBe(name);
        }
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});
