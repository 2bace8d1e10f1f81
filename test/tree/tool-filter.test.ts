import { describe, expect, it } from "vitest";
import { ToolFilter } from "../../src/tree/tool-filter.js";

const tools = [
  "get_file",
  "get_secret_key",
  "list_repos",
  "delete_repo",
  "delete_file",
  "create_issue",
];
const allowed = (patterns: string[]) => tools.filter((t) => new ToolFilter(patterns).allows(t));

describe("tool_filter (the specification's examples)", () => {
  it("[] exposes every tool", () => {
    expect(allowed([])).toEqual(tools);
  });
  it('["!delete_*"] exposes everything but delete tools', () => {
    expect(allowed(["!delete_*"])).toEqual([
      "get_file",
      "get_secret_key",
      "list_repos",
      "create_issue",
    ]);
  });
  it('["get_*", "list_*"] exposes only get and list tools', () => {
    expect(allowed(["get_*", "list_*"])).toEqual(["get_file", "get_secret_key", "list_repos"]);
  });
  it('["get_*", "!get_secret_*"] exposes get tools but not secret ones', () => {
    expect(allowed(["get_*", "!get_secret_*"])).toEqual(["get_file"]);
  });
  it("pattern order does not matter", () => {
    expect(allowed(["!get_secret_*", "get_*"])).toEqual(allowed(["get_*", "!get_secret_*"]));
    expect(allowed(["list_*", "!delete_*", "get_*"])).toEqual(
      allowed(["get_*", "list_*", "!delete_*"]),
    );
  });
  it("a deny pattern wins over an allow pattern for the same tool", () => {
    expect(allowed(["get_file", "!get_file"])).toEqual([]);
  });
  it("globs match whole names, with ? and character classes", () => {
    expect(allowed(["get_fil?"])).toEqual(["get_file"]);
    expect(allowed(["delete_[f]*"])).toEqual(["delete_file"]);
    expect(allowed(["get"])).toEqual([]);
  });
});
