import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  STDERR_LINE_CHARS,
  STDERR_LINES_PER_SECOND,
  StderrLines,
} from "../../src/sources/mcp/stderr-lines.js";
import { capturingLogger } from "../helpers/broker.js";
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

describe("a source's stderr in the log", () => {
  it("logs each line once, whole, however its bytes were cut", () => {
    fc.assert(
      fc.property(printed, ({ bytes, chunks }) => {
        const { log, lines } = capturingLogger();
        const stderr = new StderrLines("/s", log, 3);
        for (const chunk of chunks) stderr.write(chunk);
        stderr.end();
        const expected = bytes
          .toString("utf8")
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => l !== "");
        const logged = lines().filter((l) => l.msg === "source stderr");
        expect(logged.map((l) => l.stderr)).toEqual(expected);
        expect(stderr.last()).toEqual(expected.slice(-3));
      }),
      { numRuns: fuzzRuns(300), seed: 11 },
    );
  });

  it("holds at most a line's worth of a line that never ends, and logs it cut", () => {
    const { log, lines } = capturingLogger();
    const stderr = new StderrLines("/s", log, 3);
    for (let i = 0; i < 100; i++) stderr.write(Buffer.from("y".repeat(100_000)));
    stderr.write(Buffer.from("\nnext\n"));
    const logged = lines().map((l) => l.stderr);
    expect(logged).toEqual([`${"y".repeat(STDERR_LINE_CHARS)}…`, "next"]);
  });

  it("logs at most its share of lines a second and counts the rest, said when the server ends", () => {
    const { log, lines } = capturingLogger();
    const stderr = new StderrLines("/s", log, 3);
    stderr.write(Buffer.from("line\n".repeat(10_000)));
    stderr.end();
    const logged = lines().filter((l) => l.msg === "source stderr");
    const leftOut = lines().find((l) => l.left_out !== undefined);
    expect(logged).toHaveLength(STDERR_LINES_PER_SECOND);
    expect(leftOut?.left_out).toBe(10_000 - STDERR_LINES_PER_SECOND);
  });
});
