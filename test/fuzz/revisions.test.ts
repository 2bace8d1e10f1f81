import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { fuzzRuns } from "../helpers/fuzz.js";

/**
 * Arbitrary 2026-07-28-looking requests at /mcp and /mcp/<name>: envelopes,
 * headers and request state, mangled. The invariants: a 4xx or a JSON-RPC
 * error that names the problem, never a 5xx or -32603; no 2025-era session
 * opened for a request that claims 2026-07-28; forged state never continues
 * a call; and the broker still answers afterwards.
 */
const MODERN = "2026-07-28";
let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker({
    registry: { predefined: false },
    tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand(), name: "fx" } }],
  });
});
afterAll(() => broker?.close());

const text = fc.string({ maxLength: 40 });
const method = fc.oneof(
  fc.constantFrom("tools/list", "tools/call", "server/discover", "prompts/get", "resources/read"),
  text,
);
const envelope = fc.record(
  {
    "io.modelcontextprotocol/protocolVersion": fc.oneof(fc.constant(MODERN), text, fc.integer()),
    "io.modelcontextprotocol/clientCapabilities": fc.oneof(
      fc.constant({}),
      fc.constant({ sampling: {} }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  },
  { requiredKeys: ["io.modelcontextprotocol/protocolVersion"] },
);

async function post(path: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${broker.url}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const raw = await res.text();
  const json = raw.startsWith("{") ? raw : /^data: (.*)$/m.exec(raw)?.[1];
  return { res, body: json ? (JSON.parse(json) as any) : raw };
}

describe("2026-07-28 requests, mangled", () => {
  it("are answered with a 4xx or a named JSON-RPC error, never a 5xx, -32603 or a session", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/mcp", "/mcp/fx"),
        method,
        envelope,
        fc.dictionary(
          fc.constantFrom("name", "arguments", "requestState", "inputResponses", "uri"),
          fc.jsonValue({ maxDepth: 2 }),
        ),
        fc.record(
          {
            "mcp-protocol-version": fc.oneof(fc.constant(MODERN), text),
            "mcp-method": fc.oneof(method, text),
            "mcp-name": text,
          },
          { requiredKeys: [] },
        ),
        async (path, m, meta, params, headers) => {
          const { res, body } = await post(path, headers, {
            jsonrpc: "2.0",
            id: 1,
            method: m,
            params: { ...params, _meta: meta },
          });
          expect(res.status).toBeLessThan(500);
          expect(res.headers.get("mcp-session-id")).toBeNull();
          if (typeof body === "object" && body.error) {
            expect(body.error.code).not.toBe(-32603);
            expect(typeof body.error.message).toBe("string");
          }
        },
      ),
      { numRuns: fuzzRuns(60) },
    );
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
  });

  it("never continue a call with request state the broker did not seal", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          text,
          fc.base64String(),
          text.map((t) => `v1.${t}.${t}`),
        ),
        async (state) => {
          const { res, body } = await post(
            "/mcp/fx",
            { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "ask" },
            {
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: {
                name: "ask",
                arguments: { question: "q" },
                requestState: state,
                inputResponses: {
                  r0: { role: "assistant", model: "m", content: { type: "text", text: "x" } },
                },
                _meta: {
                  "io.modelcontextprotocol/protocolVersion": MODERN,
                  "io.modelcontextprotocol/clientCapabilities": { sampling: {} },
                },
              },
            },
          );
          expect(res.status).toBeLessThan(500);
          expect(body.error).toMatchObject({ code: -32602 });
        },
      ),
      { numRuns: fuzzRuns(40) },
    );
  });
});
