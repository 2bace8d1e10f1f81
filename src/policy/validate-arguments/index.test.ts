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

  it("says what the tool takes, as TypeScript, where that is short enough to carry", async () => {
    const next = answering(textResult("ok"));
    const refused = await validateArguments()(toolCall({}, { inputSchema: schema }), next).catch(
      (err: unknown) => err,
    );
    expect(refused).toMatchObject({
      kind: "invalid_params",
      details: { declaration: "tool(args: {\n  n: number;\n}): Promise<ContentBlock[]>;" },
    });
    const wide = {
      type: "object" as const,
      properties: Object.fromEntries(
        Array.from({ length: 300 }, (_, i) => [`field_${i}`, { type: "string" }]),
      ),
      required: ["field_0"],
    };
    const long = await validateArguments()(toolCall({}, { inputSchema: wide }), next).catch(
      (err: unknown) => err,
    );
    expect(long).toMatchObject({ kind: "invalid_params" });
    expect((long as { details: object }).details).not.toHaveProperty("declaration");
    expect(next.reached).toHaveLength(0);
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
