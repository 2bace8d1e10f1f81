import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { searchTool, startToolService, type ToolService } from "../helpers/tool-service.js";

/**
 * Malformed JSON-RPC and arbitrary params at `POST /rpc`. The invariant: the
 * right JSON-RPC error naming the problem (or a 4xx for what HTTP answers),
 * never a 5xx, never an internal error, and the broker still answers.
 */
let broker: TestBroker;
let service: ToolService;
beforeAll(async () => {
  service = await startToolService("healthy");
  broker = await startBroker({ tree: [], registry: { predefined: false } });
  const { body } = await rpc({
    jsonrpc: "2.0",
    method: "tools/register",
    params: { tool: searchTool(service.url) },
    id: 0,
  });
  expect(body.result.status).toBe("registered");
});
afterAll(async () => {
  await broker?.close();
  await service?.kill();
});

const rpc = (body: unknown) => broker.post("/rpc", body);
const REGISTRY_CODES = [-32000, -32001, -32002, -32003, -32004, -32005, -32006, -32007];

async function stillAnswers(): Promise<void> {
  expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
  const { body } = await rpc({ jsonrpc: "2.0", method: "tools/list", id: 1 });
  expect(body.result.tools).toHaveLength(1);
}

describe("malformed JSON-RPC", () => {
  it.each([
    ["not JSON", "{]", -32700, null],
    ["an empty body", "", -32700, null],
    ["a JSON string", '"tools/list"', -32600, null],
    ["wrong jsonrpc", { jsonrpc: "1.0", method: "tools/list", id: 1 }, -32600, 1],
    ["no jsonrpc", { method: "tools/list", id: 2 }, -32600, 2],
    ["missing method", { jsonrpc: "2.0", id: 3 }, -32600, 3],
    ["a number for method", { jsonrpc: "2.0", method: 5, id: 4 }, -32600, 4],
    [
      "a string for params",
      { jsonrpc: "2.0", method: "tools/list", params: "x", id: 5 },
      -32600,
      5,
    ],
    ["an object for id", { jsonrpc: "2.0", method: "tools/list", id: { a: 1 } }, -32600, null],
    ["an unknown member", { jsonrpc: "2.0", method: "tools/list", id: 6, extra: 1 }, -32600, 6],
    ["an unknown method", { jsonrpc: "2.0", method: "constructor", id: 7 }, -32601, 7],
    ["a prototype key as method", { jsonrpc: "2.0", method: "__proto__", id: 8 }, -32601, 8],
    [
      "wrong types in params",
      { jsonrpc: "2.0", method: "tools/call", params: { tool_name: 5, function_name: [] }, id: 9 },
      -32004,
      9,
    ],
  ])("answers %s with its JSON-RPC error", async (_what, body, code, id) => {
    const { status, body: answer } = await rpc(body);
    expect(status).toBe(200);
    expect(answer).toMatchObject({ jsonrpc: "2.0", error: { code }, id });
    expect(typeof answer.error.data.details).toBe("string");
    expect(answer.error.data.details.length).toBeGreaterThan(10);
  });

  it("answers each member of a batch in order, bad members with their own error", async () => {
    const { status, body } = await rpc([
      { jsonrpc: "2.0", method: "tools/list", id: "a" },
      42,
      { jsonrpc: "2.0", method: "nope", id: "b" },
      { jsonrpc: "2.0", method: "tools/list" },
      {
        jsonrpc: "2.0",
        method: "tools/call",
        params: { tool_name: "search_tool", function_name: "echo", arguments: { x: 1 } },
        id: "c",
      },
    ]);
    expect(status).toBe(200);
    expect(body.map((r: { id: unknown }) => r.id)).toEqual(["a", null, "b", "c"]);
    expect(body[0].result.tools).toHaveLength(1);
    expect(body[1].error.code).toBe(-32600);
    expect(body[2].error.code).toBe(-32601);
    expect(body[3].result.data).toEqual({ x: 1 });
  });

  it("refuses a batch of 10,000 whole, and an empty one, without running any", async () => {
    const before = (await service.stats()).calls;
    const huge = Array.from({ length: 10_000 }, (_, id) =>
      id % 2 === 0
        ? { jsonrpc: "2.0", method: "tools/list", id }
        : { jsonrpc: "2.0", method: "tools/call", params: { tool_name: "search_tool" }, id },
    );
    const { status, body } = await rpc(huge);
    expect(status).toBe(200);
    expect(body).toMatchObject({ error: { code: -32600 }, id: null });
    expect(body.error.data.details).toContain("at most 1000 requests; this one has 10000");
    expect((await rpc([])).body.error.code).toBe(-32600);
    expect((await service.stats()).calls).toBe(before);
    await stillAnswers();
  });

  it("answers a batch of notifications only with no content", async () => {
    const res = await fetch(`${broker.url}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ jsonrpc: "2.0", method: "tools/list" }]),
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });
});

describe("arbitrary input (property-based)", () => {
  const json = fc.jsonValue({ maxDepth: 4 });
  const text = fc.string({ unit: "binary", maxLength: 80 });

  it("answers any body with a JSON-RPC response or a 4xx, never a 5xx", async () => {
    const body = fc.oneof(
      text,
      json.map((v) => JSON.stringify(v)),
      fc.array(json, { maxLength: 5 }).map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            jsonrpc: fc.constantFrom("2.0", "1.0"),
            method: fc.oneof(
              text,
              fc.constantFrom(
                "tools/call",
                "tools/list",
                "health/check",
                "tools/register",
                "tools/unregister",
                "tools/search",
              ),
            ),
            params: fc.oneof(
              json,
              fc.record(
                { query: fc.oneof(text, json), limit: json, path: fc.oneof(text, json) },
                { requiredKeys: [] },
              ),
            ),
            id: json,
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const { status, body: answer } = await rpc(raw);
        expect(status).toBeLessThan(500);
        if (status === 204) return;
        for (const r of Array.isArray(answer) ? answer : [answer]) {
          expect(r.jsonrpc).toBe("2.0");
          if (r.error) expect(r.error.data?.error_type).not.toBe("internal");
        }
      }),
      { numRuns: fuzzRuns(150), seed: 14 },
    );
    await stillAnswers();
  });

  it("answers any tools/call params with a result or a registry error naming the problem", async () => {
    const params = fc.record(
      {
        tool_name: fc.oneof(fc.constant("search_tool"), text),
        function_name: fc.oneof(fc.constantFrom("web_search", "echo", "scalar"), text),
        arguments: fc.oneof(fc.dictionary(text, json, { maxKeys: 4 }), json),
        call_id: fc.oneof(text, json),
        timeout: fc.oneof(fc.double({ min: -5, max: 1000, noNaN: true }), json),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(params, async (p) => {
        const { status, body } = await rpc({
          jsonrpc: "2.0",
          method: "tools/call",
          params: p,
          id: 1,
        });
        expect(status).toBe(200);
        if (body.result) {
          expect(body.result.status).toBe("completed");
          return;
        }
        expect(REGISTRY_CODES).toContain(body.error.code);
        expect(body.error.data.error_type).not.toBe("internal");
        expect(body.error.data.details.length).toBeGreaterThan(10);
      }),
      { numRuns: fuzzRuns(150), seed: 15 },
    );
    await stillAnswers();
  });

  it("answers any tools/register params with a registration or -32004 naming the field, storing nothing bad", async () => {
    const fn = fc.record(
      {
        name: fc.oneof(fc.constantFrom("f", "g"), text),
        description: fc.oneof(text, json),
        parameters: fc.oneof(
          fc.constant({ type: "object" }),
          fc.constant({ type: "object", properties: { q: { type: "strnig" } } }),
          fc.constant({ type: "array" }),
          json,
        ),
        timeout_seconds: fc.oneof(fc.integer({ min: -1, max: 40 }), json),
        retry_count: fc.oneof(fc.integer({ min: -1, max: 9 }), json),
      },
      { requiredKeys: [] },
    );
    const tool = fc.record(
      {
        name: fc.oneof(fc.constantFrom("fuzzed", "fuzzed-2"), text),
        description: fc.oneof(text, json),
        category: fc.oneof(text, json),
        status: fc.oneof(fc.constantFrom("AVAILABLE", "MAINTENANCE", "BROKEN"), json),
        endpoint: fc.oneof(
          fc.constant(service.url),
          fc.constantFrom("ftp://127.0.0.1/", "http://user:pw@127.0.0.1/", "http://10.0.0.1/"),
          text,
        ),
        functions: fc.oneof(fc.array(fn, { maxLength: 3 }), json),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(tool, json), async (t) => {
        const { status, body } = await rpc({
          jsonrpc: "2.0",
          method: "tools/register",
          params: { tool: t },
          id: 1,
        });
        expect(status).toBe(200);
        if (body.result) {
          expect(body.result.tool_id).toMatch(/^fuzzed(-2)?_v\d+$/);
          return;
        }
        expect(body.error.code).toBe(-32004);
        expect(body.error.data.details).toMatch(/\$\.tool/);
      }),
      { numRuns: fuzzRuns(150), seed: 16 },
    );
    const { body } = await rpc({ jsonrpc: "2.0", method: "tools/list", id: 2 });
    for (const listed of body.result.tools) expect(listed.functions.length).toBeGreaterThan(0);
    for (const name of ["fuzzed", "fuzzed-2"]) {
      await rpc({ jsonrpc: "2.0", method: "tools/unregister", params: { tool_name: name }, id: 3 });
    }
    await stillAnswers();
  });
});

describe("schemas a registrant writes, patterns and all", () => {
  /** Pieces of regular expressions, the catastrophic kinds among them. */
  const piece = fc.constantFrom(
    "a",
    "b",
    ".",
    "\\d",
    "[ab]",
    "*",
    "+",
    "?",
    "(a+)+",
    "(.*a){12}",
    "(a|aa)*",
    "(?=a)",
    "\\1",
    "(",
    ")",
    "^",
    "$",
    "{2,}",
  );
  const pattern = fc.array(piece, { minLength: 1, maxLength: 8 }).map((p) => p.join(""));
  const input = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.nat(60).map((n) => `${"a".repeat(n)}!`),
  );

  it("registers or refuses in words, and checks every argument in linear time (fast-check)", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        pattern,
        fc.array(input, { minLength: 1, maxLength: 3 }),
        async (p, texts) => {
          const name = `patterned_${n++}`;
          const { body } = await rpc({
            jsonrpc: "2.0",
            method: "tools/register",
            params: {
              tool: {
                name,
                endpoint: service.url,
                functions: [
                  {
                    name: "echo",
                    parameters: {
                      type: "object",
                      properties: { q: { type: "string", pattern: p } },
                    },
                  },
                ],
              },
            },
            id: 1,
          });
          if (body.error) {
            expect(body.error.code).toBe(-32004);
            return;
          }
          for (const q of texts) {
            const call = await rpc({
              jsonrpc: "2.0",
              method: "tools/call",
              params: { tool_name: name, function_name: "echo", arguments: { q } },
              id: 2,
            });
            if (call.body.error) expect(call.body.error.code).toBe(-32004);
            else expect(call.body.result.status).toBe("completed");
          }
          await rpc({
            jsonrpc: "2.0",
            method: "tools/unregister",
            params: { tool_name: name },
            id: 3,
          });
        },
      ),
      { numRuns: fuzzRuns(40), seed: 23 },
    );
    await stillAnswers();
  });
});
