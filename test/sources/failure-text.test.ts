import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import { failureText } from "../../src/sources/mcp/failure-text.js";
import { fuzzRuns } from "../helpers/fuzz.js";

/** An error as fetch throws it: its reason, with Node's code, is its cause. */
function fetchFailed(code: string): TypeError {
  return new TypeError("fetch failed", {
    cause: Object.assign(new Error(`connect ${code} 10.0.0.1:443`), { code }),
  });
}

describe("failureText", () => {
  it("says in words what Node's codes mean, through the causes they are wrapped in", () => {
    expect(failureText(fetchFailed("ECONNREFUSED"))).toBe(
      "nothing listens at that address (connection refused)",
    );
    const wrapped = new SdkError(
      SdkErrorCode.EraNegotiationFailed,
      "probe failed: fetch failed",
      {},
      {
        cause: fetchFailed("ENOTFOUND"),
      },
    );
    expect(failureText(wrapped)).toBe("the host name does not resolve");
    expect(failureText(fetchFailed("CERT_HAS_EXPIRED"))).toBe(
      "its TLS certificate was not accepted (CERT_HAS_EXPIRED)",
    );
  });

  it("never quotes what an HTTP backend answered, whatever it was", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 599 }),
        fc.string({ minLength: 8, maxLength: 300 }),
        (status, page) => {
          const err = new SdkHttpError(
            SdkErrorCode.ClientHttpNotImplemented,
            `Error POSTing to endpoint: ${page}`,
            { status, statusText: "x", text: page },
          );
          const said = failureText(err);
          expect(said).toContain(`HTTP ${status}`);
          expect(said).not.toContain(page);
        },
      ),
      { numRuns: fuzzRuns(500) },
    );
  });

  it("passes on another error as one line of at most 200 characters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (message) => {
        const said = failureText(new Error(message));
        expect(said).not.toContain("\n");
        expect(said.length).toBeLessThanOrEqual(201);
        expect(message.startsWith(said.replace(/…$/, ""))).toBe(true);
      }),
      { numRuns: fuzzRuns(500) },
    );
  });
});
