import { describe, expect, it } from "vitest";
import {
  qualifiedName,
  qualifiedUri,
  qualifiedUriTemplate,
  splitName,
  splitUri,
} from "../../src/frontends/mcp/protocol/aggregate-names.js";

describe("qualified names and URIs of the aggregated /mcp", () => {
  it("map back exactly, whatever the URI holds", () => {
    for (const uri of [
      "test://static-text",
      "file:///a b/ü?.txt#frag",
      "demo://resource/static/document/architecture.md",
    ]) {
      expect(splitUri(qualifiedUri("docs", uri))).toEqual({ source: "docs", uri });
    }
    expect(qualifiedUri("docs", "test://a")).toBe("mcp-broker://docs/test%3A%2F%2Fa");
  });

  it("keep template expressions, so an expanded template maps back", () => {
    const template = qualifiedUriTemplate("fx", "test://template/{id}/data");
    expect(template).toBe("mcp-broker://fx/test%3A%2F%2Ftemplate%2F{id}%2Fdata");
    expect(splitUri(template.replace("{id}", "42"))).toEqual({
      source: "fx",
      uri: "test://template/42/data",
    });
  });

  it("split a qualified name by the longest known source name", () => {
    expect(qualifiedName("a", "b__c")).toBe("a__b__c");
    expect(splitName("a__b__c", ["a", "a__b"])).toEqual({ source: "a__b", name: "c" });
    expect(splitName("a__b__c", ["a"])).toEqual({ source: "a", name: "b__c" });
    expect(splitName("zz__x", ["a"])).toBeUndefined();
    expect(splitName("a__", ["a"])).toBeUndefined();
  });

  it("refuse what is not theirs", () => {
    expect(splitUri("test://a")).toBeUndefined();
    expect(splitUri("mcp-broker://nosource")).toBeUndefined();
    expect(splitUri("mcp-broker://x/%E0%A4%A")).toBeUndefined();
  });
});
