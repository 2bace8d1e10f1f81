/**
 * Compiles tool input schemas with ajv and turns its errors into sentences that
 * name the argument. Draft-07 schemas (what most MCP servers emit) and 2020-12
 * schemas are both accepted; compiled validators are shared by schema text, so
 * rebuilding the tree does not compile the same schema twice.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { BrokerError } from "../contract/errors.js";

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv | Ajv2020) => void;

const options = { strict: false, allErrors: true, validateFormats: true } as const;
const draft07 = new Ajv(options);
const draft2020 = new Ajv2020(options);
addFormats(draft07);
addFormats(draft2020);

const cache = new Map<string, ValidateFunction>();

export type ArgsValidator = (args: unknown) => void;

/** Compiles a schema; throws an Error saying why when the schema itself is invalid. */
export function compileArgsSchema(schema: Record<string, unknown>): ArgsValidator {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    const dialect = typeof schema.$schema === "string" ? schema.$schema : "";
    const ajv = /draft-0[4-7]/.test(dialect) ? draft07 : draft2020;
    const { $schema: _ignored, ...body } = schema;
    validate = ajv.compile(body);
    cache.set(key, validate);
  }
  const compiled = validate;
  return (args) => {
    if (compiled(args)) return;
    const errors = (compiled.errors ?? []).map(describeError);
    throw new BrokerError("invalid_params", `invalid arguments: ${errors.join("; ")}`, {
      errors,
    });
  };
}

function describeError(e: ErrorObject): string {
  const where = e.instancePath === "" ? "" : argName(e.instancePath);
  switch (e.keyword) {
    case "required": {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      const parent = where === "" ? "" : `${where}.`;
      return `missing required argument '${parent}${missing}'`;
    }
    case "additionalProperties": {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      return `unknown argument '${where === "" ? "" : `${where}.`}${extra}'`;
    }
    case "enum": {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      return `argument '${where}' must be one of ${allowed.map((v) => JSON.stringify(v)).join(", ")}`;
    }
    default:
      return where === ""
        ? `arguments ${e.message ?? "are invalid"}`
        : `argument '${where}' ${e.message ?? "is invalid"}`;
  }
}

/** `/user/0/name` → `user[0].name` */
function argName(pointer: string): string {
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join("");
}
