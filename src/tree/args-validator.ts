/**
 * Checks tool arguments against their input schemas with ajv and turns its
 * errors into sentences that name the argument. Draft-07 schemas (what most
 * MCP servers emit) and 2020-12 schemas are both accepted. Every schema comes
 * from outside (a backend, a registrant), so what one costs must be bounded:
 * - patterns (`pattern`, `patternProperties`) run on RE2 (re2js), whose time
 *   is linear in the input: `^(a+)+$` against 34 `a`s and a `!` took the
 *   built-in engine 106 s;
 * - a schema is compiled when a call first needs it, not when the tree is
 *   built: ajv generates some fifteen times a schema's size in code, a few
 *   milliseconds per kilobyte, and a backend may list a thousand tools and
 *   change them at will. Building the tree only reads a schema (ajv's meta
 *   schema, its patterns), once per distinct schema;
 * - compiled validators are kept by schema text in a cache bounded by the
 *   text's size, least recently used first out, and ajv itself keeps nothing
 *   of a compiled schema; its instances are replaced after a while;
 * - a schema the broker cannot check safely is not checked by it at all, and
 *   says why (`unchecked`): a pattern RE2 cannot read (lookaround,
 *   backreferences), a schema over 64 KiB or nested over 64 levels. The
 *   backend checks its own arguments; a guess would refuse good arguments or
 *   pass bad ones.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { RegExpEngine } from "ajv/dist/types/index.js";
import addFormatsModule from "ajv-formats";
import traverse from "json-schema-traverse";
import { LRUCache } from "lru-cache";
import { RE2JS } from "re2js";
import { BrokerError } from "../contract/errors.js";
import { nestsDeeperThan } from "../contract/json-depth.js";
import { nearestName } from "../contract/nearest-name.js";
import { valueMeant } from "../contract/did-you-mean.js";
import { typeMismatch } from "./type-mismatch.js";

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void;

/** A larger schema, as JSON, is not checked by the broker. */
export const MAX_CHECKED_SCHEMA_CHARS = 64 * 1024;
/** A schema nested deeper is not checked by the broker (ajv reads schemas recursively). */
export const MAX_CHECKED_SCHEMA_DEPTH = 64;
/** Schema text whose compiled validators are kept at most: about 80 MiB of code and data. */
const COMPILED_TEXT = 4 * 1024 * 1024;
/** Compiles an ajv instance takes before the next compile gets a new one. */
const COMPILES_PER_INSTANCE = 2000;

/** A pattern as RE2 reads it, or undefined when RE2 cannot. */
function re2(pattern: string): RE2JS | undefined {
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch {
    return undefined;
  }
}

/**
 * ajv's `code.regExp`: RE2, which never backtracks. ajv keeps one per
 * instance by its `toString()`, which must therefore name the pattern. A
 * schema with a pattern RE2 cannot read is never compiled (`prepare`).
 */
const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const re = re2(pattern);
    if (re === undefined) throw new Error(`pattern ${JSON.stringify(pattern)} is not read by RE2`);
    return { test: (text: string) => re.test(text), toString: () => `re2:${pattern}` };
  },
  // What ajv's standalone code would import; the broker never generates any.
  { code: 'require("re2js").RE2JS' },
);

interface Dialects {
  readonly draft07: Ajv;
  readonly draft2020: Ajv2020;
  compiles: number;
}

function dialects(): Dialects {
  const options = {
    strict: false,
    allErrors: true,
    validateFormats: true,
    code: { regExp: linearRegExp },
  } as const;
  const draft07 = new Ajv(options);
  const draft2020 = new Ajv2020(options);
  addFormats(draft07);
  addFormats(draft2020);
  return { draft07, draft2020, compiles: 0 };
}

let current = dialects();

const dialectOf = (schema: Record<string, unknown>): Ajv =>
  /draft-0[4-7]/.test(typeof schema.$schema === "string" ? schema.$schema : "")
    ? current.draft07
    : current.draft2020;

/** What reading a schema found: why the broker does not check it, if it does not. */
interface Reading {
  readonly unchecked?: string | undefined;
}

/** Schema text whose readings are kept at most (the text is their key). */
const READ_TEXT = 8 * 1024 * 1024;

const readings = new LRUCache<string, Reading>({
  maxSize: READ_TEXT,
  sizeCalculation: (_value, key) => Math.max(1, key.length),
});
const compiled = new LRUCache<string, ValidateFunction>({
  maxSize: COMPILED_TEXT,
  sizeCalculation: (_value, key) => Math.max(1, key.length),
});

export type ArgsValidator = ((args: unknown) => void) & {
  /** Why the broker does not check these arguments (the backend does), if it does not. */
  readonly unchecked?: string | undefined;
};

/**
 * A validator of a schema; throws an Error saying why when the schema itself
 * is invalid. The schema is compiled on the validator's first use.
 */
export function compileArgsSchema(schema: Record<string, unknown>): ArgsValidator {
  const key = JSON.stringify(schema);
  let reading = readings.get(key);
  if (!reading) {
    reading = read(schema, key);
    readings.set(key, reading);
  }
  const { unchecked } = reading;
  if (unchecked !== undefined) return Object.assign(() => undefined, { unchecked });
  return (args: unknown) => {
    const validate = compiled.get(key) ?? compile(schema, key);
    if (validate(args)) return;
    const found = validate.errors ?? [];
    const errors = found.map((e) => describeError(e, schema, args, found));
    throw new BrokerError("invalid_params", `invalid arguments: ${errors.join("; ")}`, {
      errors,
    });
  };
}

/** How much schema text the cache of compiled validators holds now, for tests and metrics. */
export function compiledSchemaChars(): number {
  return compiled.calculatedSize;
}

/** Checks a schema against its meta schema and reads its patterns, without compiling it. */
function read(schema: Record<string, unknown>, key: string): Reading {
  if (key.length > MAX_CHECKED_SCHEMA_CHARS) {
    return { unchecked: `its schema is larger than ${MAX_CHECKED_SCHEMA_CHARS} characters` };
  }
  if (nestsDeeperThan(schema, MAX_CHECKED_SCHEMA_DEPTH)) {
    return { unchecked: `its schema nests deeper than ${MAX_CHECKED_SCHEMA_DEPTH} levels` };
  }
  const ajv = dialectOf(schema);
  const { $schema: _ignored, ...body } = schema;
  if (!ajv.validateSchema(body)) throw new Error(ajv.errorsText(ajv.errors, { dataVar: "schema" }));
  const unreadable = patternsOf(body).filter((pattern) => re2(pattern) === undefined);
  if (unreadable.length === 0) return {};
  return {
    unchecked: `its pattern ${unreadable.map((p) => JSON.stringify(p)).join(", ")} cannot be checked in linear time (lookaround or backreferences)`,
  };
}

/** Every `pattern` and `patternProperties` key of a schema, at any depth. */
function patternsOf(schema: Record<string, unknown>): string[] {
  const patterns: string[] = [];
  traverse(schema, { allKeys: true }, (subschema) => {
    if (typeof subschema.pattern === "string") patterns.push(subschema.pattern);
    const properties: unknown = subschema.patternProperties;
    if (properties !== null && typeof properties === "object") {
      patterns.push(...Object.keys(properties));
    }
  });
  return patterns;
}

function compile(schema: Record<string, unknown>, key: string): ValidateFunction {
  if (current.compiles >= COMPILES_PER_INSTANCE) current = dialects();
  current.compiles++;
  const ajv = dialectOf(schema);
  const { $schema: _ignored, ...body } = schema;
  try {
    const validate = ajv.compile(body);
    compiled.set(key, validate);
    return validate;
  } catch (err) {
    throw new BrokerError(
      "execution_failed",
      `the tool's inputSchema cannot be used to check arguments: ${(err as Error).message}`,
    );
  } finally {
    // Its id is free again (two tools may share one), and ajv holds nothing of it.
    ajv.removeSchema(body);
  }
}

/**
 * One of ajv's errors as a sentence naming the argument. A missing or
 * unknown argument also names the one a typo likely meant (`schema` and
 * `args` are what was checked, `all` every error found), so that a model
 * can retry in one step.
 */
function describeError(
  e: ErrorObject,
  schema: Record<string, unknown>,
  args: unknown,
  all: readonly ErrorObject[],
): string {
  const where = e.instancePath === "" ? "" : argName(e.instancePath);
  const parent = where === "" ? "" : `${where}.`;
  switch (e.keyword) {
    case "required": {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      // Where the typo is also an unknown argument, that error names the pair already.
      const unknown = all.some(
        (other) =>
          other.keyword === "additionalProperties" && other.instancePath === e.instancePath,
      );
      // A name the schema declares is an argument of its own, not a typo of this one.
      const declared = new Set(declaredBeside(schema, e));
      const undeclared = keysOf(at(args, e.instancePath)).filter((k) => !declared.has(k));
      const given = unknown ? undefined : nearestName(missing, undeclared);
      const typo = given === undefined ? "" : ` ('${parent}${given}' was given: a typo?)`;
      return `missing required argument '${parent}${missing}'${typo}`;
    }
    case "additionalProperties": {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      const meant = nearestName(extra, declaredBeside(schema, e));
      const typo = meant === undefined ? "" : ` (did you mean '${parent}${meant}'?)`;
      return `unknown argument '${parent}${extra}'${typo}`;
    }
    case "type": {
      const expected = (e.params as { type: string | string[] }).type;
      const types = Array.isArray(expected) ? expected.join(",") : expected;
      if (where === "") break;
      return `argument '${where}' ${e.message ?? `must be ${types}`}${typeMismatch(types, at(args, e.instancePath))}`;
    }
    case "enum": {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      const typo = valueMeant(at(args, e.instancePath), allowed);
      return `argument '${where}' must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}${typo}`;
    }
  }
  return where === ""
    ? `arguments ${e.message ?? "are invalid"}`
    : `argument '${where}' ${e.message ?? "is invalid"}`;
}

/**
 * The argument names declared where an error's keyword sits: ajv's
 * schemaPath ends in the keyword (`#/properties/user/required`), beside the
 * `properties` of the same schema.
 */
function declaredBeside(schema: Record<string, unknown>, e: ErrorObject): string[] {
  const holder = at(schema, e.schemaPath.replace(/^#/, "").replace(/\/[^/]*$/, ""));
  return keysOf((holder as { properties?: unknown } | undefined)?.properties);
}

/** The keys a JSON pointer (ajv's instancePath, or a schemaPath after its `#`) names, in order. */
function segmentsOf(pointer: string): string[] {
  return pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** What a JSON pointer points at in `value`, if anything. */
function at(value: unknown, pointer: string): unknown {
  let here = value;
  for (const key of segmentsOf(pointer)) {
    if (typeof here !== "object" || here === null || !Object.hasOwn(here, key)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

function keysOf(value: unknown): string[] {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? Object.keys(value)
    : [];
}

/** `/user/0/name` → `user[0].name` */
function argName(pointer: string): string {
  return segmentsOf(pointer)
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join("");
}
