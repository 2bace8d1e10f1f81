import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { KEY_MEANT } from "../../src/contract/key-meant.js";
import { fuzzRuns } from "../helpers/fuzz.js";

const Call = z.strictObject({ path: z.string(), args: z.record(z.string(), z.unknown()) });
const messages = (schema: z.ZodType, input: unknown) => {
  const result = schema.safeParse(input, KEY_MEANT);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
};

describe("KEY_MEANT", () => {
  it("names the key a mistyped one likely stands for", () => {
    expect(messages(Call, { Path: "/a", args: {} })).toContain(
      'Unrecognized key: "Path" (did you mean "path"?)',
    );
    expect(messages(Call, { path: "/a", arg: {} })).toContain(
      'Unrecognized key: "arg" (did you mean "args"?)',
    );
    const Rpc = z.strictObject({ tool_name: z.string(), function_name: z.string() });
    expect(messages(Rpc, { tool_name: "t", function: "f" })).toContain(
      'Unrecognized key: "function" (did you mean "function_name"?)',
    );
    expect(messages(Call, { path: "/a", args: {}, zzzz: 1, pth: 2 })).toEqual([
      'Unrecognized keys: "zzzz", "pth"',
    ]);
  });

  it("names the option a mistyped one likely stands for, in zod's words otherwise", () => {
    const Expose = z.strictObject({ expose: z.enum(["meta", "flat", "both"]) });
    expect(messages(Expose, { expose: "flta" })).toEqual([
      'Invalid option: expected one of "meta"|"flat"|"both" (did you mean "flat"?)',
    ]);
    expect(messages(Expose, { expose: "Meta" })).toEqual([
      'Invalid option: expected one of "meta"|"flat"|"both" (did you mean "meta"?)',
    ]);
    for (const input of [{ expose: "nothing-like-it" }, { expose: 3 }])
      expect(messages(Expose, input)).toEqual(
        Expose.safeParse(input).error!.issues.map((issue) => issue.message),
      );
  });

  it("never names a key that was given too, and keeps zod's words for every other issue", () => {
    expect(messages(Call, { path: "/a", args: {}, arg: {} })).toEqual(['Unrecognized key: "arg"']);
    expect(messages(Call, { path: 1, args: {} })).toEqual(
      Call.safeParse({ path: 1, args: {} }).error!.issues.map((issue) => issue.message),
    );
  });

  it("names only keys the object takes and the input lacks, whatever the input", () => {
    const Declared = z.strictObject({
      message: z.string().optional(),
      count: z.number().optional(),
      tool_filter: z.array(z.string()).optional(),
    });
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 80 }), fc.constant(null)), (input) => {
        for (const message of messages(Declared, input)) {
          for (const [, meant] of message.matchAll(/did you mean "([^"]*)"/g)) {
            expect(Object.keys(Declared.shape)).toContain(meant);
            expect(Object.hasOwn(input, meant!)).toBe(false);
          }
        }
      }),
      { numRuns: fuzzRuns(500) },
    );
  });
});
