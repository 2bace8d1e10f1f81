import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { endpointWords } from "../../src/sources/mcp/http-backend.js";
import { fuzzRuns } from "../helpers/fuzz.js";

describe("endpointWords", () => {
  it("names the endpoint without its query, credentials or a key in its path", () => {
    expect(endpointWords("https://u:pw@mcp.example.com/api/v1/mcp?api_key=sk-123")).toBe(
      "https://mcp.example.com/api/v1/mcp",
    );
    expect(endpointWords("https://mcp.example.com/api/mcp/s/Zx81kQp0aLm2vB7tYc4W/mcp")).toBe(
      "https://mcp.example.com/api/mcp/s/…/mcp",
    );
    expect(
      endpointWords("https://mcp.example.net/5f0c2a9e-81b4-4c3d-9e2f-7a6b5c4d3e2f/github"),
    ).toBe("https://mcp.example.net/…/github");
  });

  it("never shows a key-like segment, wherever it is in the path", () => {
    const key = fc
      .string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789-_"), minLength: 14 })
      .map((k) => `k${k}9`);
    const segment = fc.constantFrom("mcp", "api", "v1", "sse", "server-name");
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 3 }),
        key,
        fc.array(segment, { maxLength: 3 }),
        (before, secret, after) => {
          const url = `https://h.example.com/${[...before, secret, ...after].join("/")}`;
          const said = endpointWords(url);
          expect(said).not.toContain(secret);
          expect(said).toBe(`https://h.example.com/${[...before, "…", ...after].join("/")}`);
        },
      ),
      { numRuns: fuzzRuns(300) },
    );
  });
});
