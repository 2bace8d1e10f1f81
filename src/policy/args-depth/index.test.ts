import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { answering, sourceRequest, textResult, toolCall } from "../../../test/helpers/requests.js";
import { argsDepth } from "./index.js";
import { fuzzRuns } from "../../../test/helpers/fuzz.js";

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 1; i < depth; i++) value = i % 2 === 0 ? [value] : { v: value };
  return value;
};

describe("argsDepth", () => {
  it("lets arguments of exactly max_args_depth levels through, and refuses one more", async () => {
    const limits = { max_args_depth: 5 };
    const next = answering(textResult("ok"));
    // The arguments object is the first level.
    await argsDepth()(toolCall({ a: nested(4) }, { limits }), next);
    await expect(argsDepth()(toolCall({ a: nested(6) }, { limits }), next)).rejects.toMatchObject({
      kind: "invalid_params",
      message:
        "the arguments of /src/tool are nested more than 5 levels deep (max_args_depth); flatten them",
      details: { max_args_depth: 5 },
    });
    expect(next.reached).toHaveLength(1);
  });

  it("refuses 200,000 levels at once, without recursion", async () => {
    const deep = JSON.parse("[".repeat(200_000) + "]".repeat(200_000));
    await expect(
      argsDepth()(toolCall({ deep }), answering(textResult("ok"))),
    ).rejects.toMatchObject({ kind: "invalid_params" });
  });

  it("checks the params of other requests too", async () => {
    await expect(
      argsDepth()(
        sourceRequest("prompts/get", { name: "p", arguments: nested(70) as never }),
        answering({ messages: [] }),
      ),
    ).rejects.toMatchObject({ kind: "invalid_params" });
  });

  it("agrees with a recursive measure on any JSON", async () => {
    const depthOf = (v: unknown): number =>
      v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 8 }),
        fc.integer({ min: 1, max: 9 }),
        async (v, max) => {
          const call = toolCall({ v }, { limits: { max_args_depth: max } });
          const passed = await argsDepth()(call, answering(textResult("ok"))).then(
            () => true,
            () => false,
          );
          expect(passed).toBe(depthOf({ v }) <= max);
        },
      ),
      { seed: 13, numRuns: fuzzRuns(300) },
    );
  });
});
