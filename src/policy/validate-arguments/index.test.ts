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
      message: "invalid arguments: unknown argument 'extra'; argument 'n' must be integer",
    });
    expect(next.reached).toHaveLength(1);
  });

  it("passes requests that are not tool calls untouched", async () => {
    const next = answering({ contents: [] });
    const request = sourceRequest("resources/read", { uri: "x" });
    await validateArguments()(request, next);
    expect(next.reached).toEqual([request]);
  });
});
