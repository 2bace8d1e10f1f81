import type { CallToolResult } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { BrokerError, NotDelivered } from "../contract/errors.js";
import type { Router } from "../contract/router.js";
import { textResult, toolCall } from "../../test/helpers/requests.js";
import { toSource } from "./to-source.js";

/** A source whose calls fail with `failures` in turn, then answer; and how often it was asked. */
function sourceFailing(...failures: BrokerError[]) {
  let calls = 0;
  const router = {
    name: "/src",
    callTool: async (): Promise<CallToolResult> => {
      const failure = failures[calls++];
      if (failure) throw failure;
      return textResult("answered");
    },
  } as unknown as Router;
  return { sources: { ready: () => router }, calls: () => calls };
}

const refused = () =>
  new NotDelivered(new BrokerError("unavailable", "source /src failed tools/call: refused"));

describe("toSource", () => {
  it("sends a request that never reached the backend once more, once the source is back", async () => {
    const source = sourceFailing(refused());
    await expect(toSource(source.sources, toolCall())).resolves.toEqual(textResult("answered"));
    expect(source.calls()).toBe(2);
  });

  it("sends it once more only: a second refusal is the caller's", async () => {
    const source = sourceFailing(refused(), refused());
    await expect(toSource(source.sources, toolCall())).rejects.toMatchObject({
      kind: "unavailable",
      message: "source /src failed tools/call: refused",
    });
    expect(source.calls()).toBe(2);
  });

  it("never sends again a request that may have arrived", async () => {
    const lost = new BrokerError("unavailable", "source /src closed its connection");
    const source = sourceFailing(lost);
    await expect(toSource(source.sources, toolCall())).rejects.toBe(lost);
    expect(source.calls()).toBe(1);
  });
});
