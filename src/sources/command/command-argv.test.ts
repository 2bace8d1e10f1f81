import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuzzRuns } from "../../../test/helpers/fuzz.js";
import { BrokerError } from "../../contract/errors.js";
import { callArgv } from "./command-argv.js";

const template = {
  argv: ["grep", "-r"],
  arguments: { pattern: ["{value}"], exclude: ["--exclude", "{value}"], path: ["--", "{value}"] },
};

describe("callArgv", () => {
  it("gives each value one element of its own, and never an option the config did not name", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (pattern, exclude, path) => {
        let argv: string[];
        try {
          argv = callArgv(template, { pattern, exclude, path });
        } catch (err) {
          expect(err).toBeInstanceOf(BrokerError);
          expect((err as BrokerError).kind).toBe("invalid_params");
          expect(pattern.startsWith("-")).toBe(true);
          return;
        }
        expect(argv).toEqual(["grep", "-r", pattern, "--exclude", exclude, "--", path]);
        // Whatever reaches a place of its own before "--" is not an option.
        expect(argv[2]!.startsWith("-")).toBe(false);
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it("takes a value beginning with '-' where the fixed command line has ended its options", () => {
    expect(callArgv({ argv: ["echo", "--"], arguments: { w: ["{value}"] } }, { w: "-n" })).toEqual([
      "echo",
      "--",
      "-n",
    ]);
  });
});
