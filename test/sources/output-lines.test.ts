import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LINE_CHARS, LINES_PER_SECOND, OutputLines } from "../../src/sources/output-lines.js";
import { fuzzRuns } from "../helpers/fuzz.js";

/** What a server printed (lines shorter than the cut), in the pieces a pipe delivered it in (any byte boundary). */
const printed = fc
  .array(fc.oneof(fc.string({ unit: "grapheme", maxLength: 10 }), fc.constant("\n")), {
    maxLength: 40,
  })
  .map((parts) => Buffer.from(parts.join("")))
  .chain((bytes) =>
    fc
      .uniqueArray(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 8 })
      .map((cuts) => {
        const at = [0, ...cuts.filter((c) => c < bytes.length).sort((a, b) => a - b), bytes.length];
        return { bytes, chunks: at.slice(1).map((end, i) => bytes.subarray(at[i], end)) };
      }),
  );

/** Lines as they were said, and the counts of those left out. */
function said(kept = 3) {
  const lines: string[] = [];
  const leftOut: number[] = [];
  const output = new OutputLines(
    (line) => lines.push(line),
    (count) => leftOut.push(count),
    kept,
  );
  return { output, lines, leftOut };
}

describe("what a source's program prints, for the log", () => {
  it("logs each line once, whole, however its bytes were cut", () => {
    fc.assert(
      fc.property(printed, ({ bytes, chunks }) => {
        const { output, lines } = said();
        for (const chunk of chunks) output.write(chunk);
        output.end();
        const expected = bytes
          .toString("utf8")
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => l !== "");
        expect(lines).toEqual(expected);
        expect(output.last()).toEqual(expected.slice(-3));
      }),
      { numRuns: fuzzRuns(300), seed: 11 },
    );
  });

  it("holds at most a line's worth of a line that never ends, and logs it cut", () => {
    const { output, lines } = said();
    for (let i = 0; i < 100; i++) output.write(Buffer.from("y".repeat(100_000)));
    output.write(Buffer.from("\nnext\n"));
    expect(lines).toEqual([`${"y".repeat(LINE_CHARS)}…`, "next"]);
  });

  it("says at most its share of lines a second and counts the rest, said when the program ends", () => {
    const { output, lines, leftOut } = said();
    output.write("line\n".repeat(10_000));
    output.end();
    expect(lines).toHaveLength(LINES_PER_SECOND);
    expect(leftOut).toEqual([10_000 - LINES_PER_SECOND]);
  });
});
