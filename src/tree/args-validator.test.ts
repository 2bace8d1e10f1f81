import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compiledSchemaChars, compileArgsSchema } from "./args-validator.js";
import { fuzzRuns } from "../../test/helpers/fuzz.js";

const withPattern = (pattern: string) =>
  compileArgsSchema({ type: "object", properties: { s: { type: "string", pattern } } });

describe("compileArgsSchema", () => {
  it("checks a pattern that backtracks for ever, in linear time: ^(a+)+$ against 34 a's and !", () => {
    const validate = withPattern("^(a+)+$");
    expect(() => validate({ s: `${"a".repeat(34)}!` })).toThrow(
      `argument 's' must match pattern "^(a+)+$"`,
    );
    // And against a hundred thousand: still linear.
    expect(() => validate({ s: `${"a".repeat(100_000)}!` })).toThrow("must match pattern");
    expect(() => validate({ s: "aaaa" })).not.toThrow();
  });

  it("patternProperties run on the same engine", () => {
    const validate = compileArgsSchema({
      type: "object",
      patternProperties: { "^(x+x+)+y$": { type: "number" } },
    });
    expect(() => validate({ [`${"x".repeat(40)}y`]: "not a number" })).toThrow("must be number");
    expect(() => validate({ [`${"x".repeat(40)}z`]: "anything" })).not.toThrow();
  });

  it("agrees with JavaScript's own engine on every pattern both read (fast-check)", () => {
    const piece = fc.constantFrom(
      "a",
      "b",
      ".",
      "\\d",
      "\\w",
      "[ab]",
      "[^a]",
      "*",
      "+",
      "?",
      "{1,2}",
      "|",
      "(",
      ")",
      "(?:",
      "^",
      "$",
      "\\.",
      "-",
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 10 }).map((p) => p.join("")),
        fc.string({ unit: fc.constantFrom("a", "b", "1", ".", "-", "x"), maxLength: 8 }),
        (pattern, text) => {
          let native: RegExp;
          try {
            native = new RegExp(pattern, "u");
          } catch {
            return; // not a pattern at all: ajv refuses the schema
          }
          let validate;
          try {
            validate = withPattern(pattern);
          } catch {
            return;
          }
          if (validate.unchecked !== undefined) return;
          const passes = (() => {
            try {
              validate({ s: text });
              return true;
            } catch {
              return false;
            }
          })();
          expect(passes, `${pattern} on ${JSON.stringify(text)}`).toBe(native.test(text));
        },
      ),
      { numRuns: fuzzRuns(500) },
    );
  });

  it("a schema with a pattern RE2 cannot read is not checked at all, and says which", () => {
    const validate = compileArgsSchema({
      type: "object",
      properties: { s: { type: "string", pattern: "^(?=x)x+$" }, n: { type: "number" } },
      patternProperties: { "^(a)\\1$": { type: "number" } },
    });
    expect(validate.unchecked).toMatch(
      /^its pattern .* cannot be checked in linear time \(lookaround or backreferences\)$/,
    );
    expect(validate.unchecked).toContain('"^(?=x)x+$"');
    expect(validate.unchecked).toContain(JSON.stringify("^(a)\\1$"));
    expect(() => validate({ s: "yyy", n: "not a number" })).not.toThrow();
  });

  it("a schema too large or too deep to check safely is not checked, and says why", () => {
    const large = compileArgsSchema({ type: "object", description: "x".repeat(70_000) });
    expect(large.unchecked).toBe("its schema is larger than 65536 characters");
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 100; i++) deep = { type: "object", properties: { a: deep } };
    expect(compileArgsSchema(deep).unchecked).toBe("its schema nests deeper than 64 levels");
  });

  it("an invalid schema is refused when read, naming the fault", () => {
    expect(() =>
      compileArgsSchema({ type: "object", properties: { a: { type: "strung" } } }),
    ).toThrow(/schema\/properties\/a\/type/);
  });

  it("two schemas with the same $id both compile", () => {
    compileArgsSchema({ $id: "urn:tool:args", type: "object" });
    const second = compileArgsSchema({ $id: "urn:tool:args", type: "object", required: ["a"] });
    expect(() => second({})).toThrow("missing required argument 'a'");
  });

  it("compiles a schema on first use, and keeps at most 4 Mi characters of compiled schemas", () => {
    const big = (i: number) => ({
      type: "object",
      properties: { [`p${i}`]: { type: "string" } },
      description: `${i} ${"x".repeat(60_000)}`,
    });
    const before = compiledSchemaChars();
    const validators = Array.from({ length: 200 }, (_, i) => compileArgsSchema(big(i)));
    expect(compiledSchemaChars()).toBe(before);
    validators.forEach((validate, i) => validate({ [`p${i}`]: "text" }));
    expect(compiledSchemaChars()).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(compiledSchemaChars()).toBeGreaterThan(3 * 1024 * 1024);
    // One compiled out of the cache is compiled again when needed.
    expect(() => validators[0]!({ p0: 1 })).toThrow("argument 'p0' must be string");
  });
  it("names the argument a typo likely meant, whether unknown ones are refused or not", () => {
    const open = compileArgsSchema({
      type: "object",
      properties: { message: { type: "string" }, user: { type: "object", required: ["name"] } },
      required: ["message"],
    });
    expect(() => open({ mesage: "hi" })).toThrow(
      "invalid arguments: missing required argument 'message' ('mesage' was given: a typo?)",
    );
    expect(() => open({ message: "hi", user: { Name: "x" } })).toThrow(
      "missing required argument 'user.name' ('user.Name' was given: a typo?)",
    );
    expect(() => open({ text: "hi" })).toThrow(/missing required argument 'message'$/);
    // A declared argument is never taken for a typo of another, however near.
    const sum = compileArgsSchema({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(() => sum({ a: 1 })).toThrow(/^invalid arguments: missing required argument 'b'$/);
    expect(() => sum({ a: 1, c: 2 })).toThrow("missing required argument 'b' ('c' was given");
    const closed = compileArgsSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { message: { type: "string" }, count: { type: "number" } },
      required: ["message"],
      additionalProperties: false,
    });
    // One error says it all: the unknown name, and the one it likely was.
    expect(() => closed({ mesage: "hi" })).toThrow(
      "invalid arguments: missing required argument 'message'; unknown argument 'mesage' (did you mean 'message'?)",
    );
    expect(() => closed({ message: "hi", cuont: 1, zzz: 2 })).toThrow(
      "invalid arguments: unknown argument 'cuont' (did you mean 'count'?); unknown argument 'zzz'",
    );
  });

  it("says what an argument of the wrong type was, and how to send text that holds the right one", () => {
    const check = compileArgsSchema({
      type: "object",
      properties: {
        a: { type: "number" },
        n: { type: "integer" },
        flags: { type: "array", items: { type: "object" } },
        maybe: { type: ["string", "null"] },
      },
    });
    expect(() => check({ a: "2" })).toThrow(
      `argument 'a' must be number, not the string "2" (send 2, without quotes)`,
    );
    expect(() => check({ n: "2.5" })).toThrow(
      /argument 'n' must be integer, not the string "2.5"$/,
    );
    expect(() => check({ flags: { on: true } })).toThrow(
      "argument 'flags' must be array, not an object",
    );
    expect(() => check({ flags: '[{"on": true}]' })).toThrow(
      `argument 'flags' must be array, not the string "[{\\"on\\": true}]" (send [{"on":true}], without quotes)`,
    );
    expect(() => check({ flags: ["x"] })).toThrow(
      `argument 'flags[0]' must be object, not the string "x"`,
    );
    expect(() => check({ maybe: 3 })).toThrow("argument 'maybe' must be string,null, not number 3");
  });

  it("names the allowed value a mistyped or miscased one likely stands for", () => {
    const check = compileArgsSchema({
      type: "object",
      properties: { unit: { enum: ["celsius", "fahrenheit", 3] } },
    });
    expect(() => check({ unit: "Celsius" })).toThrow(
      `argument 'unit' must be one of "celsius", "fahrenheit", 3 (did you mean "celsius"?)`,
    );
    expect(() => check({ unit: "farenheit" })).toThrow(`(did you mean "fahrenheit"?)`);
    expect(() => check({ unit: "kelvin" })).toThrow(/must be one of "celsius", "fahrenheit", 3$/);
  });

  it("describes any value of the wrong type in a bounded message (fast-check)", () => {
    const check = compileArgsSchema({ type: "object", properties: { a: { type: "number" } } });
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        fc.pre(typeof value !== "number");
        let message = "";
        try {
          check({ a: value });
        } catch (err) {
          message = (err as Error).message;
        }
        expect(message).toMatch(/^invalid arguments: argument 'a' must be number, not /);
        expect(message.length).toBeLessThan(200);
      }),
      { numRuns: fuzzRuns(300) },
    );
  });
});
