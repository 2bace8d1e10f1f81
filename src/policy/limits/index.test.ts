import { describe, expect, it } from "vitest";
import { answering, sourceRequest, textResult, toolCall } from "../../../test/helpers/requests.js";
import { limits } from "./index.js";

describe("limits", () => {
  it("refuses arguments over max_request_bytes as too_large", async () => {
    const request = toolCall(
      { text: "x".repeat(100) },
      { limits: { max_args_depth: 64, max_request_bytes: 50 } },
    );
    await expect(limits()(request, answering(textResult("ok")))).rejects.toMatchObject({
      kind: "too_large",
      details: { max_request_bytes: 50, size: 111 },
    });
  });

  it("refuses a tool's limit argument over max_result_items, naming the maximum", async () => {
    const request = toolCall(
      { limit: 11 },
      { limits: { max_args_depth: 64, max_result_items: 10 } },
    );
    await expect(limits()(request, answering(textResult("ok")))).rejects.toMatchObject({
      kind: "invalid_params",
      message: expect.stringContaining("over the maximum of 10 (max_result_items)"),
    });
  });

  it("refuses a result of any kind over max_result_bytes", async () => {
    const bounded = { limits: { max_args_depth: 64, max_result_bytes: 100 } };
    const big = { contents: [{ uri: "x", text: "y".repeat(200) }] };
    await expect(
      limits()(sourceRequest("resources/read", { uri: "x" }, bounded), answering(big)),
    ).rejects.toMatchObject({ kind: "too_large", details: { max_result_bytes: 100 } });
    const small = { contents: [{ uri: "x", text: "y" }] };
    expect(
      await limits()(sourceRequest("resources/read", { uri: "x" }, bounded), answering(small)),
    ).toBe(small);
  });
});
