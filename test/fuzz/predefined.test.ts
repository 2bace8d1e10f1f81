import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { makeDocx, makePdf } from "../helpers/documents.js";
import { fuzzRuns } from "../helpers/fuzz.js";

/**
 * Arbitrary arguments to every predefined function through `/rpc`. The
 * invariant: a result, or a registry error with a sentence (never an
 * internal error, never a 5xx), and the broker still answers after.
 */
let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker({ tree: [], toolsets: { calculator: { timeout_s: 0.5 } } });
});
afterAll(() => broker?.close());

const text = fc.string({ unit: "binary", maxLength: 60 });
const json = fc.jsonValue({ maxDepth: 3 });
/** Strings made of the calculator's own alphabet, so the parser sees more than noise. */
const mathish = fc
  .array(
    fc.constantFrom(
      "1",
      "2.5",
      "e",
      "pi",
      "x",
      "+",
      "-",
      "*",
      "/",
      "^",
      "!",
      "(",
      ")",
      "[",
      "]",
      ",",
      ";",
      "sqrt",
      "sin",
      "det",
      "ones",
      "zeros",
      "cm",
      "inch",
      " to ",
      "=",
      "f(x)",
      ".",
      "'",
      "constructor",
      "__proto__",
      "import",
      "evaluate",
      "1e308",
      ":",
    ),
    { maxLength: 25 },
  )
  .map((parts) => parts.join(""));

const CASES: [string, string, fc.Arbitrary<Record<string, unknown>>][] = [
  ["calculator", "calculate", fc.record({ expression: fc.oneof(mathish, text) })],
  [
    "calculator",
    "convert_units",
    fc.record({
      value: fc.oneof(fc.double(), fc.integer()),
      from_unit: fc.oneof(fc.constantFrom("km", "mi", "degC", "kg", "J", "kWh"), text),
      to_unit: fc.oneof(fc.constantFrom("m", "ft", "degF", "lb", "BTU"), text),
    }),
  ],
  [
    "time_tool",
    "current_time",
    fc.record(
      {
        timezone: fc.oneof(fc.constantFrom("UTC", "Europe/Berlin", "America/St_Johns"), text),
        format: fc.oneof(fc.constantFrom("ISO8601", "RFC2822", "unix", "yyyy 'week' W"), text),
      },
      { requiredKeys: [] },
    ),
  ],
  [
    "time_tool",
    "time_difference",
    fc.record({
      start_time: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        text,
      ),
      end_time: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        text,
      ),
      unit: fc.constantFrom("seconds", "minutes", "hours", "days"),
    }),
  ],
  [
    "document_analyzer",
    "extract_text",
    fc.record({
      document_url: fc.oneof(
        text,
        fc.webUrl(),
        fc.constantFrom("file:///etc/passwd", "http://127.0.0.1:1/", "gopher://x", "data:,hi"),
      ),
    }),
  ],
  [
    "search_tool",
    "web_search",
    fc.record({ query: text, max_results: fc.oneof(fc.integer(), json) }),
  ],
  ["image_generator", "generate_image", fc.record({ prompt: text })],
];

describe("the predefined tools under arbitrary arguments", () => {
  it.each(CASES)("%s.%s answers with a result or a registry error", async (tool, fn, args) => {
    await fc.assert(
      fc.asyncProperty(args, async (a) => {
        const { status, body } = await broker.post("/rpc", {
          jsonrpc: "2.0",
          method: "tools/call",
          params: { tool_name: tool, function_name: fn, arguments: a },
          id: 1,
        });
        expect(status).toBe(200);
        if (body.result) return;
        expect([-32001, -32004, -32005, -32006]).toContain(body.error.code);
        expect(body.error.data.error_type).not.toBe("internal");
        expect(body.error.data.details.length).toBeGreaterThan(5);
      }),
      { numRuns: fuzzRuns(60), seed: 17 },
    );
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);
  });
});

describe("the calculator's callers cannot reach each other", () => {
  const calculate = (expression: string) =>
    broker.post("/rpc", {
      jsonrpc: "2.0",
      method: "tools/call",
      params: { tool_name: "calculator", function_name: "calculate", arguments: { expression } },
      id: 1,
    });
  /** What a caller sees of the calculator's settings and scope. */
  const PROBES = ["floor(2.9)", "equal(1, 1.1)", "1 / 3", "x", "f(2)", "random(1) <= 1"];
  const probe = async () =>
    Promise.all(
      PROBES.map(async (expression) => {
        const { body } = await calculate(expression);
        return body.result?.data.result ?? body.error.data.details;
      }),
    );
  /** Expressions that would leave something behind if anything could. */
  const stateful = fc.constantFrom(
    "config({relTol: 0.2})",
    'config({number: "BigNumber"})',
    "config({randomSeed: 1})",
    "x = 5",
    "f(x) = x * 100",
    "import({x: 1}, {override: true})",
    'createUnit("foo")',
    "floor = 7",
  );

  it("no expression changes what a later one sees (fast-check)", async () => {
    const before = await probe();
    expect(before.slice(0, 3)).toEqual([2, false, 0.333333333333333]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(stateful, mathish), { maxLength: 4 }), async (sent) => {
        for (const expression of sent) await calculate(expression);
        expect(await probe()).toEqual(before);
      }),
      { numRuns: fuzzRuns(15), seed: 9 },
    );
  });
});

describe("documents anyone could write", () => {
  let folder: string;
  let reader: TestBroker;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), "mcp-broker-fuzz-docs-"));
    reader = await startBroker({
      tree: [],
      toolsets: { documents: { roots: [folder], timeout_s: 5 } },
    });
  });
  afterAll(() => reader?.close());

  const tag = fc.constantFrom("div", "p", "span", "script", "nav", "table", "br", "title", "head");
  const html = fc
    .array(
      fc.oneof(
        tag.map((t) => `<${t}>`),
        tag.map((t) => `</${t}>`),
        fc.string({ maxLength: 20 }),
        fc.constantFrom("&amp;", "<!--", "-->", "<div hidden>", '<a href="x">'),
      ),
      { maxLength: 60 },
    )
    .map((parts) => Buffer.from(`<html><body>${parts.join("")}`));
  const withHeader = (header: string) =>
    fc
      .uint8Array({ maxLength: 2000 })
      .map((b) => Buffer.concat([Buffer.from(header, "latin1"), b]));
  const document = fc.oneof(
    html,
    withHeader("%PDF-1.4\n"),
    withHeader("PK\u0003\u0004word/"),
    fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b)),
    fc.array(fc.string({ maxLength: 30 }), { maxLength: 5 }).map((lines) => makePdf(lines)),
    // Paragraphs of a DOCX, written out in the property (the zip is made asynchronously).
    fc.array(fc.string({ maxLength: 30 }), { maxLength: 5 }),
  );

  it("read or refused in words, never an internal error, and the broker answers after (fast-check)", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        document,
        fc.constantFrom("extract_text", "analyze_document"),
        async (doc, fn) => {
          const bytes = Array.isArray(doc) ? await makeDocx(doc) : doc;
          const file = join(folder, `doc-${n++}`);
          writeFileSync(file, bytes);
          const { status, body } = await reader.post("/rpc", {
            jsonrpc: "2.0",
            method: "tools/call",
            params: {
              tool_name: "document_analyzer",
              function_name: fn,
              arguments: { document_url: pathToFileURL(file).href },
            },
            id: 1,
          });
          expect(status).toBe(200);
          if (body.result) return;
          expect([-32001, -32004, -32006]).toContain(body.error.code);
          expect(body.error.data.error_type).not.toBe("internal");
        },
      ),
      { numRuns: fuzzRuns(40), seed: 31 },
    );
    expect((await fetch(`${reader.url}/healthz`)).status).toBe(200);
  });
});
