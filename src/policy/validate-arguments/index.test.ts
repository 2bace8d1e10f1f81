import { describe, expect, it } from "vitest";
import { answering, sourceRequest, textResult, toolCall } from "../../../test/helpers/requests.js";
import { validateArguments } from "./index.js";

const schema = {
  type: "object" as const,
  properties: { n: { type: "integer" } },
  required: ["n"],
  additionalProperties: false,
};

describe("validateArguments", () => {
  it("refuses arguments that do not fit the tool's schema, naming them, before the source", async () => {
    const next = answering(textResult("ok"));
    await validateArguments()(toolCall({ n: 1 }, { inputSchema: schema }), next);
    await expect(
      validateArguments()(toolCall({ n: "x", extra: 1 }, { inputSchema: schema }), next),
    ).rejects.toMatchObject({
      kind: "invalid_params",
      message:
        "invalid arguments: unknown argument 'extra'; argument 'n' must be integer, not the string \"x\"",
    });
    expect(next.reached).toHaveLength(1);
  });

  it("refuses a resource URI that is not an absolute URI, and passes a good one untouched", async () => {
    const next = answering({ contents: [] });
    const request = sourceRequest("resources/read", { uri: "test://a" });
    await validateArguments()(request, next);
    expect(next.reached).toEqual([request]);
    for (const uri of ["", "a.txt", "::"])
      await expect(
        validateArguments()(sourceRequest("resources/subscribe", { uri }), next),
      ).rejects.toMatchObject({ kind: "invalid_params", details: { uri } });
  });
});
