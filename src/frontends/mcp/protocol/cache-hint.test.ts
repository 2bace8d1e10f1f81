import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EVERYONE } from "../../../auth/token-book.js";
import type { CacheHint } from "../../../contract/router.js";
import { fuzzRuns } from "../../../../test/helpers/fuzz.js";
import { combinedHint } from "./cache-hint.js";

const token = { id: "reader", scopes: ["*:/**"] };
const hint = fc.record({
  ttlMs: fc.nat(),
  cacheScope: fc.constantFrom("public" as const, "private" as const),
});

describe("combinedHint", () => {
  it("is as fresh as the least fresh part, public only if all parts are and no token filtered it", () => {
    expect(
      combinedHint(
        [
          { ttlMs: 5000, cacheScope: "public" },
          { ttlMs: 100, cacheScope: "public" },
        ],
        EVERYONE,
      ),
    ).toEqual({ ttlMs: 100, cacheScope: "public" });
    expect(combinedHint([{ ttlMs: 5000, cacheScope: "public" }], token)).toEqual({
      ttlMs: 5000,
      cacheScope: "private",
    });
    expect(combinedHint([{ ttlMs: 5000, cacheScope: "public" }, undefined], EVERYONE)).toEqual({});
    expect(combinedHint([], EVERYONE)).toEqual({});
  });

  it("never promises more than any part: ttl at most each part's, public never from a private part", () => {
    fc.assert(
      fc.property(fc.array(hint, { minLength: 1, maxLength: 8 }), fc.boolean(), (hints, anyone) => {
        const combined = combinedHint(hints, anyone ? EVERYONE : token) as CacheHint;
        for (const h of hints) expect(combined.ttlMs).toBeLessThanOrEqual(h.ttlMs);
        if (combined.cacheScope === "public") {
          expect(anyone).toBe(true);
          expect(hints.every((h) => h.cacheScope === "public")).toBe(true);
        }
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});
