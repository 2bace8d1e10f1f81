import { describe, expect, it } from "vitest";
import { truncateOutput, type TruncatedOutput } from "../../src/output/truncate.js";

const size = (v: unknown) => JSON.stringify(v).length;

describe("max_output_chars", () => {
  it("returns output within the limit unchanged, and the same object", () => {
    const value = { a: "short", list: [1, 2, 3] };
    expect(truncateOutput(value, 1000)).toBe(value);
    expect(truncateOutput(value, undefined)).toBe(value);
  });

  it("shortens long strings first and keeps the structure", () => {
    const value = { title: "t", body: "x".repeat(5000), tags: ["a", "b"] };
    const out = truncateOutput(value, 500) as TruncatedOutput;
    expect(out.truncated).toBe(true);
    expect(out.original_chars).toBe(size(value));
    expect(out.max_output_chars).toBe(500);
    const v = out.value as typeof value;
    expect(Object.keys(v)).toEqual(["title", "body", "tags"]);
    expect(v.tags).toEqual(["a", "b"]);
    expect(v.body).toMatch(/^x+…\[\+\d+ chars\]$/);
    expect(size(v)).toBeLessThanOrEqual(500);
    expect(size(v)).toBeGreaterThan(400);
  });

  it("compacts long lists when shortening strings is not enough, saying how many items were left out", () => {
    const value = { items: Array.from({ length: 1000 }, (_, i) => ({ id: i, name: `item ${i}` })) };
    const out = truncateOutput(value, 1000) as TruncatedOutput;
    const items = (out.value as { items: unknown[] }).items;
    expect(items.length).toBeLessThan(1000);
    expect(items[0]).toEqual({ id: 0, name: "item 0" });
    expect(items.at(-1)).toMatch(/^…\[\+\d+ items\]$/);
    const left = Number(/\d+/.exec(items.at(-1) as string)![0]);
    expect(items.length - 1 + left).toBe(1000);
    expect(size(out.value)).toBeLessThanOrEqual(1000);
  });

  it("cuts a plain string and says how much was cut", () => {
    const out = truncateOutput("y".repeat(10_000), 100) as TruncatedOutput;
    expect(out.value).toMatch(/^y+…\[\+\d+ chars\]$/);
    expect(size(out.value)).toBeLessThanOrEqual(100);
  });

  it("falls back to cut JSON text for a value with too many keys to fit in any shape", () => {
    const value = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`key${i}`, i]));
    const out = truncateOutput(value, 200) as TruncatedOutput;
    expect(typeof out.value).toBe("string");
    expect(out.value).toMatch(/^\{"key0":0,.*…\[\+\d+ chars\]$/);
    expect(size(out.value)).toBeLessThanOrEqual(200);
  });
});
