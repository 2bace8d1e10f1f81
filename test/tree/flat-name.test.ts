import fc from "fast-check";
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
  it("keeps long names within 64 characters, unique and stable, the tool's own name whole", () => {
    const long = `/${"a".repeat(40)}/${"b".repeat(40)}`;
    const names = ["list_issues", "get_issue", "create_issue"].map((t) => flatName(`${long}/${t}`));
    for (const name of names) expect(name.length).toBeLessThanOrEqual(64);
    expect(new Set(names).size).toBe(3);
    expect(names[0]).toMatch(/^a{40}_[0-9a-f]{8}__list_issues$/);
    expect(names[2]!.endsWith("__create_issue")).toBe(true);
    expect(flatName(`${long}/list_issues`)).toBe(names[0]);
  });
  it("cuts only a tool name that leaves no room, and ends it in the hash", () => {
    const name = flatName(`/srv/${"t".repeat(70)}`);
    expect(name).toMatch(/^t{55}_[0-9a-f]{8}$/);
    expect(flatName(`/${"t".repeat(70)}`)).toMatch(/^t{55}_[0-9a-f]{8}$/);
  });
  it("stays within 64 characters of [A-Za-z0-9_-], one name per path", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 50 }), { minLength: 1, maxLength: 6 }),
        (segments) => {
          const path = `/${segments.join("/")}`;
          const name = flatName(path);
          expect(name.length).toBeLessThanOrEqual(64);
          expect(name).toMatch(/^[A-Za-z0-9_-]*$/);
          expect(flatName(path)).toBe(name);
        },
      ),
    );
  });
});
