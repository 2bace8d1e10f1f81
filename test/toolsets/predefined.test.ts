import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBroker, type TestBroker } from "../helpers/broker.js";
import { connectHttp, textOf } from "../helpers/mcp-client.js";

/** The predefined tools of the tool registry protocol, through /rpc, the tree and MCP. */
let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker({
    expose: "both",
    tree: [{ path: "/calc", source: { backend: "builtin", toolset: "calculator" } }],
    toolsets: { calculator: { timeout_s: 0.3 } },
  });
});
afterAll(() => broker?.close());

let nextId = 1;
const call = async (tool: string, fn: string, args: object) =>
  (
    await broker.post("/rpc", {
      jsonrpc: "2.0",
      method: "tools/call",
      params: { tool_name: tool, function_name: fn, arguments: args },
      id: nextId++,
    })
  ).body;

describe("the predefined tools in the registry", () => {
  it("are registered at start-up with the protocol's names and categories", async () => {
    const { body } = await broker.post("/rpc", { jsonrpc: "2.0", method: "tools/list", id: 0 });
    const byName = Object.fromEntries(
      body.result.tools.map(
        (t: { name: string; category: string; functions: { name: string }[] }) => [
          t.name,
          [t.category, t.functions.map((f) => f.name)],
        ],
      ),
    );
    expect(byName).toMatchObject({
      calculator: ["CALCULATION", ["calculate", "convert_units"]],
      time_tool: ["TIME", ["current_time", "time_difference"]],
    });
    const health = await broker.post("/rpc", {
      jsonrpc: "2.0",
      method: "health/check",
      params: { tool_name: "calculator" },
      id: 1,
    });
    expect(health.body.result).toMatchObject({
      status: "healthy",
      capabilities: ["calculate", "convert_units"],
      tool_id: "calculator_v1",
    });
  });

  it("keep their names: a service cannot register as one of them", async () => {
    const { body } = await broker.post("/rpc", {
      jsonrpc: "2.0",
      method: "tools/register",
      params: {
        tool: {
          name: "calculator",
          endpoint: "http://127.0.0.1:9/",
          functions: [{ name: "calculate" }],
        },
      },
      id: 2,
    });
    expect(body.error).toMatchObject({ code: -32004 });
    expect(body.error.data.details).toContain('"calculator" is a predefined tool');
  });
});

describe("calculator", () => {
  it("calculates numbers, functions, matrices and units", async () => {
    expect(
      (await call("calculator", "calculate", { expression: "2 * (3 + 4)" })).result.data,
    ).toEqual({
      expression: "2 * (3 + 4)",
      result: 14,
      type: "number",
    });
    expect(
      (await call("calculator", "calculate", { expression: "0.1 + 0.2" })).result.data.result,
    ).toBe(0.3);
    expect(
      (await call("calculator", "calculate", { expression: "sqrt(16) + sin(pi / 2)" })).result.data
        .result,
    ).toBe(5);
    expect(
      (await call("calculator", "calculate", { expression: "[1, 2; 3, 4] * [5; 6]" })).result.data,
    ).toMatchObject({
      value: [[17], [39]],
      size: [2, 1],
      type: "matrix",
    });
    expect(
      (await call("calculator", "calculate", { expression: "5 cm + 2 inch to mm" })).result.data,
    ).toMatchObject({
      result: "100.8 mm",
      value: 100.8,
      unit: "mm",
    });
  });

  it("names the position of a syntax error", async () => {
    const { error } = await call("calculator", "calculate", { expression: "2 +* 3" });
    expect(error).toMatchObject({ code: -32004 });
    expect(error.data.details).toContain("not valid at character 5");
  });

  it.each([
    ['import({"x": 1})', "function import is not available"],
    ['evaluate("1 + 1")', "function evaluate is not available"],
    ['parse("1 + 1")', "function parse is not available"],
    ['createUnit("foo")', "function createUnit is not available"],
    ['simplify("x + x")', "function simplify is not available"],
    ['derivative("x^2", "x")', "function derivative is not available"],
    ['cos.constructor("return process")()', ""],
    ['[].constructor.constructor("return process")()', ""],
    ['"".constructor.prototype', ""],
    ["{}.__proto__", ""],
    ['f = cos.constructor; f("return 1")', ""],
  ])("refuses the sandbox escape %s", async (expression, says) => {
    const answer = await call("calculator", "calculate", { expression });
    expect(answer.error?.code, JSON.stringify(answer)).toBe(-32004);
    expect(answer.error.data.details).toContain(says);
    expect(JSON.stringify(answer)).not.toMatch(/pid|execPath|versions/);
  });

  it("stops an expression that runs too long, and keeps calculating after", async () => {
    const started = Date.now();
    // Some seconds of work: one isPrime of this size can finish within 0.3 s on a fast moment.
    const { error } = await call("calculator", "calculate", {
      expression: Array(8).fill("isPrime(9007199254740881)").join(" + "),
    });
    expect(error).toMatchObject({ code: -32004 });
    expect(error.data.details).toContain("took longer than 0.3 s; it was stopped");
    expect(Date.now() - started).toBeLessThan(3000);
    expect(
      (await call("calculator", "calculate", { expression: "1 + 1" })).result.data.result,
    ).toBe(2);
  });

  it("stops an expression that needs too much memory", async () => {
    const { error } = await call("calculator", "calculate", { expression: "zeros(1e5, 1e5)" });
    expect(error).toMatchObject({ code: -32004 });
    expect(error.data.details).toMatch(/memory|took longer/);
  });

  it("refuses an expression longer than 2000 characters before reading it", async () => {
    const { error } = await call("calculator", "calculate", {
      expression: "1+".repeat(1500) + "1",
    });
    expect(error.data.details).toContain("at most 2000 are taken");
  });

  it("converts between units and says when they do not measure the same thing", async () => {
    expect(
      (await call("calculator", "convert_units", { value: 1, from_unit: "mi", to_unit: "km" }))
        .result.data,
    ).toMatchObject({ value: 1.609344, result: "1.609344 km" });
    expect(
      (
        await call("calculator", "convert_units", {
          value: 100,
          from_unit: "degC",
          to_unit: "degF",
        })
      ).result.data.value,
    ).toBe(212);
    const { error } = await call("calculator", "convert_units", {
      value: 1,
      from_unit: "km",
      to_unit: "kg",
    });
    expect(error).toMatchObject({ code: -32004 });
    expect(error.data.details).toBe(
      "cannot convert km to kg: they do not measure the same kind of quantity",
    );
    const unknown = await call("calculator", "convert_units", {
      value: 1,
      from_unit: "furlongz",
      to_unit: "m",
    });
    expect(unknown.error.data.details).toContain('Unit "furlongz" not found');
  });
});

describe("time_tool", () => {
  it("tells the current time in any IANA zone and format", async () => {
    const berlin = (
      await call("time_tool", "current_time", { timezone: "Europe/Berlin", format: "RFC2822" })
    ).result.data;
    expect(berlin.timezone).toBe("Europe/Berlin");
    expect(berlin.time).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0[12]00$/);
    const utc = (await call("time_tool", "current_time", {})).result.data;
    expect(utc).toMatchObject({ timezone: "UTC", format: "ISO8601", utc_offset: "+00:00" });
    expect(Math.abs(Date.parse(utc.time) - Date.now())).toBeLessThan(5000);
    const unix = (await call("time_tool", "current_time", { format: "unix" })).result.data;
    expect(Math.abs(unix.time - Date.now() / 1000)).toBeLessThan(5);
    const tokens = (
      await call("time_tool", "current_time", { timezone: "Asia/Tokyo", format: "yyyy-MM-dd" })
    ).result.data;
    expect(tokens.time).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("names an unknown zone", async () => {
    const { error } = await call("time_tool", "current_time", { timezone: "Mars/Olympus_Mons" });
    expect(error).toMatchObject({ code: -32004 });
    expect(error.data.details).toContain('unknown time zone "Mars/Olympus_Mons"');
  });

  it("takes fixed offsets places keep, and no others", async () => {
    for (const timezone of ["UTC+99", "UTC-13", "UTC+14:30", "UTC+1000"]) {
      const { error } = await call("time_tool", "current_time", { timezone });
      expect(error?.data.details, timezone).toContain(`unknown time zone "${timezone}"`);
    }
    for (const [timezone, offset] of [
      ["UTC+14", "+14:00"],
      ["UTC-12", "-12:00"],
      ["UTC+5:30", "+05:30"],
    ]) {
      const { result } = await call("time_tool", "current_time", { timezone });
      expect(result?.data.utc_offset, timezone).toBe(offset);
    }
  });

  it.each([
    [
      "across the spring DST change in Berlin",
      "2024-03-31T00:00:00+01:00",
      "2024-03-31T04:00:00+02:00",
      "hours",
      3,
    ],
    [
      "across the autumn DST change in New York",
      "2024-11-03T00:00:00-04:00",
      "2024-11-03T03:00:00-05:00",
      "hours",
      4,
    ],
    ["over a leap day", "2024-02-28", "2024-03-01", "days", 2],
    ["over February of a common year", "2023-02-28", "2023-03-01", "days", 1],
    ["backwards, signed", "2024-03-01T00:00:00Z", "2024-02-28T00:00:00Z", "days", -2],
    ["without offsets, as UTC", "2024-01-01T00:00", "2024-01-01T01:30", "minutes", 90],
    [
      "in seconds with fractions",
      "2024-01-01T00:00:00.250Z",
      "2024-01-01T00:00:01Z",
      "seconds",
      0.75,
    ],
    ["in the default unit, hours", "2024-01-01T00:00:00Z", "2024-01-02T12:00:00Z", undefined, 36],
  ])("measures %s", async (_what, start_time, end_time, unit, expected) => {
    const { result } = await call("time_tool", "time_difference", {
      start_time,
      end_time,
      ...(unit === undefined ? {} : { unit }),
    });
    expect(result.data.difference).toBeCloseTo(expected as number, 9);
    expect(result.data.unit).toBe(unit ?? "hours");
  });

  it("names a timestamp it cannot read", async () => {
    const { error } = await call("time_tool", "time_difference", {
      start_time: "yesterday",
      end_time: "2024-01-01",
    });
    expect(error).toMatchObject({ code: -32004 });
    expect(error.data.details).toContain('start_time "yesterday" is not an ISO 8601 timestamp');
  });
});

describe("in the tree and over MCP", () => {
  it("answers meta_call at the registry's node and at a builtin mount", async () => {
    for (const path of ["/registry/calculator/calculate", "/calc/calculate"]) {
      const { body } = await broker.post("/meta_call", { path, args: { expression: "6 * 7" } });
      expect(body.output.structuredContent.result, path).toBe(42);
    }
  });

  it("answers an MCP client", async () => {
    const client = await connectHttp(broker.url);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("registry__time_tool__time_difference");
      const result = await client.callTool({
        name: "calc__convert_units",
        arguments: { value: 2, from_unit: "km", to_unit: "m" },
      });
      expect(JSON.parse(textOf(result)).value).toBe(2000);
    } finally {
      await client.close();
    }
  });
});

describe("with registry.predefined off", () => {
  it("leaves them out of the registry, while a builtin mount still works", async () => {
    const quiet = await startBroker({
      tree: [{ path: "/time", source: { backend: "builtin", toolset: "time_tool" } }],
      registry: { predefined: false },
    });
    try {
      const { body } = await quiet.post("/rpc", {
        jsonrpc: "2.0",
        method: "tools/call",
        params: {
          tool_name: "calculator",
          function_name: "calculate",
          arguments: { expression: "1" },
        },
        id: 1,
      });
      expect(body.error.code).toBe(-32002);
      const out = await quiet.post("/meta_call", {
        path: "/time/time_difference",
        args: { start_time: "2024-01-01", end_time: "2024-01-02", unit: "days" },
      });
      expect(out.body.output.structuredContent.difference).toBe(1);
    } finally {
      await quiet.close();
    }
  });
});
