import { describe, expect, it } from "vitest";
import { allows, reaches } from "../src/auth/scopes.js";
import { sha256, TokenBook } from "../src/auth/token-book.js";

const principal = (...scopes: string[]) => ({ id: "t", scopes });

describe("scopes", () => {
  it("allow an action on the paths their glob matches, and no other action", () => {
    const p = principal("call:/cms/**", "tree:/**");
    expect(allows(p, "call", "/cms/read/get")).toBe(true);
    expect(allows(p, "call", "/other/x")).toBe(false);
    expect(allows(p, "describe", "/cms/read/get")).toBe(false);
    expect(allows(p, "tree", "/anything")).toBe(true);
    expect(allows(principal("*:/**"), "admin", "/x")).toBe(true);
  });

  it("let the nodes on the way to a scope be seen, and hide the rest", () => {
    const p = principal("tree:/cms/*/read");
    expect(reaches(p, "tree", "/")).toBe(true);
    expect(reaches(p, "tree", "/cms")).toBe(true);
    expect(reaches(p, "tree", "/cms/a")).toBe(true);
    expect(reaches(p, "tree", "/cms/a/read")).toBe(true);
    expect(reaches(p, "tree", "/shop")).toBe(false);
    expect(reaches(p, "tree", "/cmsx")).toBe(false);
  });
});

describe("TokenBook", () => {
  const book = new TokenBook(
    [{ id: "ci", sha256: sha256("tok-1").toString("hex"), scopes: ["call:/**"] }],
    "shared",
  );

  it("knows a token by its digest, and the shared secret as every scope", () => {
    expect(book.authenticate("tok-1")).toEqual({ id: "ci", scopes: ["call:/**"] });
    expect(book.authenticate("shared")).toEqual({ id: "shared-secret", scopes: ["*:/**"] });
    expect(book.authenticate("tok-2")).toBeUndefined();
    expect(book.authenticate("")).toBeUndefined();
    expect(book.required).toBe(true);
    expect(new TokenBook([]).required).toBe(false);
  });
});
