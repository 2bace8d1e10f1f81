import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readRelayMessage } from "../../src/frontends/mcp/shared/relay-message.js";
import { fuzzRuns } from "../helpers/fuzz.js";

const TO = "3f0c1a52-5a8e-4b8e-9d55-0d6c3c1b2a10";

describe("a message of the input-bridge relay, read from the bus", () => {
  it("is read when it has the relay's shape", () => {
    const round = { state: { step: 1 }, inputResponses: { a: {} }, owner: "alice" };
    expect(
      readRelayMessage(JSON.stringify({ type: "round", to: TO, from: "x", id: "1", round })),
    ).toEqual({ type: "round", to: TO, from: "x", id: "1", round });
    const failure = { broker: { kind: "timeout", message: "took too long" } };
    expect(readRelayMessage(JSON.stringify({ type: "reply", to: TO, id: "1", failure }))).toEqual({
      type: "reply",
      to: TO,
      id: "1",
      failure,
    });
    // Passed on as sent, keys the SDK's schema does not name included.
    const notification = {
      method: "notifications/message",
      params: { level: "info", data: { rows: [1] }, vendor: { trace: "abc" } },
    };
    expect(
      readRelayMessage(JSON.stringify({ type: "notify", to: TO, id: "1", notification })),
    ).toEqual({ type: "notify", to: TO, id: "1", notification });
  });

  it("is dropped when it is not, even addressed to this instance", () => {
    for (const text of [
      "null",
      "[]",
      "42",
      '"round"',
      "{",
      JSON.stringify({ type: "reply", to: TO, id: "1", failure: "x" }),
      JSON.stringify({
        type: "reply",
        to: TO,
        id: "1",
        failure: { broker: { kind: "nope", message: "" } },
      }),
      JSON.stringify({ type: "notify", to: TO, id: "1", notification: null }),
      JSON.stringify({ type: "round", to: TO, from: "x", id: "1", round: { state: [] } }),
      JSON.stringify({ type: "cancel", to: TO }),
      JSON.stringify({ type: "other", to: TO, id: "1" }),
    ])
      expect(readRelayMessage(text), text).toBeUndefined();
  });

  it("never throws, whatever comes", () => {
    const addressed = fc
      .record(
        {
          type: fc.constantFrom("round", "cancel", "notify", "reply", "x"),
          to: fc.constant(TO),
          from: fc.string(),
          id: fc.string(),
          round: fc.jsonValue({ maxDepth: 3 }),
          notification: fc.jsonValue({ maxDepth: 3 }),
          outcome: fc.jsonValue({ maxDepth: 3 }),
          failure: fc.jsonValue({ maxDepth: 3 }),
        },
        { requiredKeys: ["type", "to"] },
      )
      .map((v) => JSON.stringify(v));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          addressed,
        ),
        (text) => {
          const message = readRelayMessage(text);
          if (message !== undefined) expect(typeof message.id).toBe("string");
        },
      ),
      { seed: 7, numRuns: fuzzRuns(500) },
    );
  });
});
