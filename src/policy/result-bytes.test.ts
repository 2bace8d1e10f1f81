import { describe, expect, it } from "vitest";
import { resultBytes, UNMEASURABLE_BYTES } from "./result-bytes.js";

describe("resultBytes", () => {
  it("measures a result's JSON in bytes", () => {
    expect(resultBytes({ content: [{ type: "text", text: "é" }] })).toBe(
      Buffer.byteLength('{"content":[{"type":"text","text":"é"}]}'),
    );
  });

  it("never throws: a result too long to serialize measures as at least 512 MiB", () => {
    // What JSON.stringify throws for a string over V8's limit, without building one.
    const huge = {
      toJSON: () => {
        throw new RangeError("Invalid string length");
      },
    };
    expect(resultBytes({ content: [huge] })).toBe(UNMEASURABLE_BYTES);
  });

  it("never throws: a result that cannot be serialized measures 0", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(resultBytes(cyclic)).toBe(0);
  });
});
