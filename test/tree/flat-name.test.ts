import { describe, expect, it } from "vitest";
import { flatName } from "../../src/tree/flat-name.js";

describe("flatName", () => {
  it("joins segments with __ and keeps [A-Za-z0-9_-]", () => {
    expect(flatName("/repo/read/get_file")).toBe("repo__read__get_file");
    expect(flatName("/demo/get-sum")).toBe("demo__get-sum");
  });
  it("replaces every other character", () => {
    expect(flatName("/cms/evo.content.search")).toBe("cms__evo_content_search");
    expect(flatName("/ünï/cödé tool")).toMatch(/^[A-Za-z0-9_-]+$/);
  });
  it("keeps long names within 64 characters, unique and stable", () => {
    const a = flatName(`/${"a".repeat(40)}/${"b".repeat(40)}/one`);
    const b = flatName(`/${"a".repeat(40)}/${"b".repeat(40)}/two`);
    expect(a.length).toBeLessThanOrEqual(64);
    expect(b.length).toBeLessThanOrEqual(64);
    expect(a).not.toBe(b);
    expect(flatName(`/${"a".repeat(40)}/${"b".repeat(40)}/one`)).toBe(a);
  });
});
