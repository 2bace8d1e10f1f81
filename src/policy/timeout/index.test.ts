import { describe, expect, it } from "vitest";
import type { Request } from "../link.js";
import { context, sourceRequest, textResult, toolCall } from "../../../test/helpers/requests.js";
import { timeout } from "./index.js";

/** A source that answers only when its signal is aborted, and says so. */
function hanging() {
  const aborted: unknown[] = [];
  const next = (request: Request) =>
    new Promise<never>((_, reject) =>
      request.ctx.signal.addEventListener("abort", () => {
        aborted.push(request.ctx.signal.reason);
        reject(new Error("aborted at the source"));
      }),
    );
  return { next, aborted };
}

describe("timeout", () => {
  it("fails a tool call past its timeout and aborts it at the source", async () => {
    const { next, aborted } = hanging();
    await expect(timeout()(toolCall({}, { timeoutMs: 50 }), next)).rejects.toMatchObject({
      kind: "timeout",
      message: expect.stringContaining("/src/tool did not finish within its timeout of 0.05 s"),
    });
    expect(aborted).toHaveLength(1);
  });

  it("times out other requests at their node's timeout, naming the setting", async () => {
    const { next } = hanging();
    await expect(
      timeout()(sourceRequest("resources/read", { uri: "x" }, { timeoutMs: 50 }), next),
    ).rejects.toMatchObject({
      kind: "timeout",
      message: expect.stringContaining("resources/read at /src did not finish"),
    });
  });

  it("gives the source a deadline no later than the timeout", async () => {
    let deadline = 0;
    await timeout()(toolCall({}, { timeoutMs: 1000 }), async (request) => {
      deadline = request.ctx.deadline;
      return textResult("ok");
    });
    expect(deadline).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("uses the timeout the caller asked for in place of the path's, and says so", async () => {
    const { next } = hanging();
    const started = Date.now();
    const call = toolCall({}, { timeoutMs: 60_000, ctx: context({ timeoutMs: 50 }) });
    await expect(timeout()(call, next)).rejects.toMatchObject({
      kind: "timeout",
      message: expect.stringContaining("did not finish within the timeout asked for of 0.05 s"),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
