import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkConfig } from "../../src/broker/check-config.js";
import { ConfigError } from "../../src/config/errors.js";
import { parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { fixtureCommand, startBroker, type TestBroker } from "../helpers/broker.js";
import { fuzzRuns } from "../helpers/fuzz.js";
import { openRawSession, postMcp } from "../helpers/mcp-client.js";

/**
 * Arbitrary JSON and arbitrary text at every entry point. The invariant: a
 * 4xx, or a JSON-RPC error that names the problem; never a 5xx, never -32603,
 * and the broker still answers /healthz afterwards. `npm run fuzz` runs many
 * more cases than the test suite.
 */
let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker({
    expose: "both",
    tree: [
      {
        path: "/fx",
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          tool_filter: ["count", "pid", "fail"],
        },
      },
    ],
  });
});
afterAll(() => broker?.close());

const text = fc.string({ unit: "binary", maxLength: 60 });
const path = fc.oneof(
  fc.constantFrom("/", "/fx", "/fx/count", "/fx/pid", "/nope", "//fx/../x"),
  text,
);
const json = fc.jsonValue({ maxDepth: 4 });

async function healthy(): Promise<void> {
  expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
}

describe("the REST meta endpoints", () => {
  const body = fc.oneof(
    text,
    json.map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          path,
          args: fc.oneof(json, fc.dictionary(text, json)),
          offset: fc.oneof(fc.integer({ min: -5, max: 2_000_000 }), json),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
    fc
      .record(
        {
          query: fc.oneof(text, fc.constantFrom("count calls", "process id", ""), json),
          limit: fc.oneof(fc.integer({ min: -5, max: 60 }), json),
          path,
          include_schema: fc.oneof(fc.boolean(), json),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
  );

  it("answer anything with a 2xx or a 4xx that names the problem", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/meta_tree", "/meta_desc", "/meta_search", "/meta_call"),
        body,
        async (endpoint, raw) => {
          const res = await broker.post(endpoint, raw);
          expect(res.status, `${endpoint} ${raw}`).toBeLessThan(500);
          if (res.status >= 400) {
            expect(res.body.error.kind).toMatch(/^[a-z_]+$/);
            expect(res.body.error.message.length).toBeGreaterThan(10);
          }
        },
      ),
      { seed: 21, numRuns: fuzzRuns(300) },
    );
    await healthy();
  }, 120_000);
});

describe("MCP JSON-RPC", () => {
  const METHODS = [
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "ping",
  ];
  const message = fc.oneof(
    text,
    json.map((v) => JSON.stringify(v)),
    fc
      .record({
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 5 })),
        method: fc.oneof(fc.constantFrom(...METHODS), text),
        params: fc.oneof(
          json,
          fc.record(
            {
              name: fc.oneof(
                fc.constantFrom("fx__count", "count", "meta_call", "meta_tree", "meta_search"),
                text,
              ),
              arguments: json,
              uri: text,
            },
            { requiredKeys: [] },
          ),
        ),
      })
      .map((m) => JSON.stringify({ jsonrpc: "2.0", ...m })),
  );

  /** The JSON-RPC messages in an answer, plain JSON or server-sent events. */
  function messages(body: string): { error?: { code: number; message: string } }[] {
    const trimmed = body.trim();
    if (trimmed === "") return [];
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) return [JSON.parse(trimmed)].flat();
    return trimmed
      .split("\n")
      .filter((l) => l.startsWith("data: ") && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)));
  }

  it.each(["/mcp", "/mcp/fx"])(
    "%s answers anything without an internal error",
    async (endpoint) => {
      const headers = await openRawSession(`${broker.url}${endpoint}`);
      await fc.assert(
        fc.asyncProperty(message, async (raw) => {
          const res = await postMcp(`${broker.url}${endpoint}`, raw, headers);
          const body = await res.text();
          expect(res.status, raw).toBeLessThan(500);
          for (const m of messages(body)) {
            if (m.error === undefined) continue;
            expect(m.error.code, `${raw} -> ${body}`).not.toBe(-32603);
            expect(m.error.message.length).toBeGreaterThan(5);
          }
        }),
        { seed: 22, numRuns: fuzzRuns(300) },
      );
      await healthy();
    },
    120_000,
  );
});

describe("the config loader", () => {
  const source = fc.record(
    {
      backend: fc.constantFrom("stdio", "http", "emcp", "command", "wasm", "pigeon"),
      command: fc.oneof(text, fc.array(text)),
      url: text,
      database: text,
      component: text,
      tools: json,
      preset: fc.constantFrom("ctxt", "x"),
      tool_filter: json,
      name: text,
    },
    { requiredKeys: ["backend"] },
  );
  const config = fc.record(
    {
      tree: fc.oneof(
        fc.array(
          fc.record({ path, source, summary: text, limits: json }, { requiredKeys: ["path"] }),
          { maxLength: 3 },
        ),
        json,
      ),
      expose: fc.oneof(fc.constantFrom("meta", "flat", "both"), text),
      sessions: json,
      limits: json,
      auth: json,
      state: text,
    },
    { requiredKeys: [] },
  );

  it("accepts a config or refuses it with problems that name where, never another error", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          text,
          json.map((v) => JSON.stringify(v)),
          config.map((v) => JSON.stringify(v)),
        ),
        (raw) => {
          try {
            checkConfig(parseConfig(raw, "fuzz.json", ConfigSchema, {}), "fuzz.json");
          } catch (err) {
            expect(err).toBeInstanceOf(ConfigError);
            for (const problem of (err as ConfigError).problems) expect(problem).toMatch(/\S{3}/);
          }
        },
      ),
      { seed: 23, numRuns: fuzzRuns(500) },
    );
  });
});
