/**
 * The calculator's worker thread: a mathjs instance locked down as mathjs's
 * security guide says (no `import`, `createUnit`, `evaluate`, `parse`,
 * `simplify`, `derivative`, `compile`, `resolve` or `reviver` reachable from
 * an expression), each expression in a fresh scope. Loaded as a file of its
 * own; the broker bounds its time and memory from outside.
 */
import { parentPort } from "node:worker_threads";
import { all, create, type MathType } from "mathjs";
import type { MathReply, MathRequest } from "./math-protocol.js";

const math = create(all!, { number: "number", precision: 64 });
const evaluate = math.evaluate.bind(math);
const unit = math.unit.bind(math);
const format = (value: unknown) => math.format(value, { precision: 14 });
/** 15 significant digits: 0.1 + 0.2 is 0.3, as a person expects, not 0.30000000000000004. */
const rounded = (value: number) => Number(value.toPrecision(15));

const disabled = (name: string) => () => {
  throw new Error(`function ${name} is not available in the calculator`);
};
math.import(
  Object.fromEntries(
    [
      "import",
      "createUnit",
      "evaluate",
      "parse",
      "simplify",
      "simplifyConstant",
      "simplifyCore",
      "derivative",
      "compile",
      "resolve",
      "reviver",
      "replacer",
      "chain",
      "rationalize",
      "leafCount",
    ].map((name) => [name, disabled(name)]),
  ),
  { override: true },
);

/** A result as JSON a caller can use, beside its text. */
function describe(value: MathType | unknown): Record<string, unknown> {
  if (typeof value === "number") {
    return Number.isFinite(value)
      ? { result: rounded(value), type: "number" }
      : { result: format(value), type: "number" };
  }
  if (typeof value === "boolean" || typeof value === "string") {
    return { result: value, type: typeof value };
  }
  if (math.isMatrix(value)) {
    const size = value.size();
    return { result: format(value), value: value.toArray(), size, type: "matrix" };
  }
  if (math.isUnit(value)) {
    return {
      result: format(value),
      value: rounded(value.toNumber()),
      unit: value.formatUnits(),
      type: "unit",
    };
  }
  if (math.isResultSet(value)) {
    const entries = (value as { entries: unknown[] }).entries;
    return { result: entries.map(format).join("; "), type: "results" };
  }
  return { result: format(value), type: math.typeOf(value).toLowerCase() };
}

function answer(request: MathRequest): MathReply {
  try {
    if (request.op === "calculate") {
      const value = evaluate(request.expression, new Map()) as unknown;
      if (typeof value === "function") {
        return {
          id: request.id,
          ok: false,
          message: "the expression defines a function but does not call it",
        };
      }
      return {
        id: request.id,
        ok: true,
        data: { expression: request.expression, ...describe(value) },
      };
    }
    const converted = unit(request.value, request.from).to(request.to);
    return {
      id: request.id,
      ok: true,
      data: {
        value: rounded(converted.toNumber(request.to)),
        from_unit: request.from,
        to_unit: request.to,
        result: format(converted),
      },
    };
  } catch (err) {
    const error = err as Error & { char?: number };
    return {
      id: request.id,
      ok: false,
      message: error.message,
      ...(typeof error.char === "number" ? { position: error.char + 1 } : {}),
    };
  }
}

parentPort!.on("message", (request: MathRequest) => parentPort!.postMessage(answer(request)));
// Ready only now: loading mathjs takes a while, and no expression's time should count it.
parentPort!.postMessage({ ready: true });
