import type { ServerRequest } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { capabilityLacking } from "./capability-lacking.js";

const roots = { method: "roots/list" } as ServerRequest;
const sampling = (params: object = {}) =>
  ({
    method: "sampling/createMessage",
    params: { messages: [], maxTokens: 1, ...params },
  }) as ServerRequest;
const elicitation = (params: object = {}) =>
  ({
    method: "elicitation/create",
    params: { message: "?", requestedSchema: { type: "object", properties: {} }, ...params },
  }) as ServerRequest;

describe("capabilityLacking", () => {
  it("names what a client that declared nothing lacks for each request a backend may make", () => {
    expect(capabilityLacking(roots, {})).toBe("roots");
    expect(capabilityLacking(sampling(), {})).toBe("sampling");
    expect(capabilityLacking(elicitation(), {})).toBe("elicitation");
  });

  it("finds nothing lacking where the client declared it", () => {
    expect(capabilityLacking(roots, { roots: {} })).toBeUndefined();
    expect(capabilityLacking(sampling(), { sampling: {} })).toBeUndefined();
    expect(capabilityLacking(elicitation(), { elicitation: { form: {} } })).toBeUndefined();
  });

  it("reads the modes: sampling with tools, elicitation by URL or by form; a bare elicitation offers forms", () => {
    expect(capabilityLacking(sampling({ tools: [] }), { sampling: {} })).toBe(
      "sampling with tools",
    );
    expect(capabilityLacking(sampling({ tools: [] }), { sampling: { tools: {} } })).toBeUndefined();
    expect(
      capabilityLacking(elicitation({ mode: "url", url: "https://x", elicitationId: "1" }), {
        elicitation: {},
      }),
    ).toBe("elicitation by URL");
    expect(capabilityLacking(elicitation(), { elicitation: {} })).toBeUndefined();
    expect(capabilityLacking(elicitation(), { elicitation: { url: {} } })).toBe(
      "elicitation by form",
    );
  });
});
