import { describe, expect, it } from "vitest";
import { namedFew } from "./views.js";

describe("namedFew", () => {
  it("names up to eight paths, then how many more there are", () => {
    expect(namedFew(["/a"])).toBe("/a");
    const ten = Array.from({ length: 10 }, (_, i) => `/n${i}`);
    expect(namedFew(ten)).toBe("/n0, /n1, /n2, /n3, /n4, /n5, /n6, /n7, and 2 more");
    expect(namedFew(ten.slice(0, 8))).toBe("/n0, /n1, /n2, /n3, /n4, /n5, /n6, /n7");
  });
});
