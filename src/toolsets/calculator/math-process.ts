/**
 * The calculator's job process: a mathjs instance locked down as mathjs's
 * security guide says (no `import`, `createUnit`, `evaluate`, `parse`,
 * `simplify`, `derivative`, `compile`, `resolve` or `reviver` reachable from
 * an expression), its settings read-only (one caller's `config()` would
 * change what every later caller gets), each expression in a fresh scope.
 * The broker bounds its time and memory from outside (isolation/).
 */
import { createRequire } from "node:module";
import type { MathType } from "mathjs";
import { BrokerError } from "../../contract/errors.js";
import { serveJobs } from "../../isolation/serve-jobs.js";
import { MAX_RESULT_ELEMENTS, type MathJob } from "./math-protocol.js";

// The bundled build: one file, loaded in a tenth of the time of the package's modules.
const { create, all } = createRequire(import.meta.url)(
  "mathjs/lib/browser/math.js",
) as typeof import("mathjs");

const math = create(all!, { number: "number", precision: 64 });
/** The settings every expression runs with; a copy, so nothing can change them. */
const settings = math.config({});
const evaluate = math.evaluate.bind(math);
const unit = math.unit.bind(math);
const format = (value: unknown) => math.format(value, { precision: 14 });
/** 15 significant digits: 0.1 + 0.2 is 0.3, as a person expects, not 0.30000000000000004. */
const rounded = (value: number) => Number(value.toPrecision(15));

const disabled = (name: string) => () => {
  throw new Error(`function ${name} is not available in the calculator`);
};
math.import(
  {
    ...Object.fromEntries(
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
    // Read as mathjs's own functions (help) read it; never changed.
    config: (options?: unknown) => {
      if (options !== undefined) throw new Error("the calculator's settings cannot be changed");
      return { ...settings };
    },
  },
  { override: true },
);

/** A matrix over the bound is refused before it is turned into text or JSON. */
function bounded(size: number[]): void {
  const elements = size.reduce((product, n) => product * n, 1);
  if (elements > MAX_RESULT_ELEMENTS) {
    throw new BrokerError(
      "invalid_params",
      `the result is a matrix of ${size.join(" × ")} = ${elements} elements; the calculator returns at most ${MAX_RESULT_ELEMENTS}`,
      { size, max_elements: MAX_RESULT_ELEMENTS },
    );
  }
}

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
    bounded(size);
    return { result: format(value), value: value.toArray(), size, type: "matrix" };
  }
  if (Array.isArray(value)) bounded(math.size(value) as number[]);
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
    for (const entry of entries) if (math.isMatrix(entry)) bounded(entry.size());
    return { result: entries.map(format).join("; "), type: "results" };
  }
  return { result: format(value), type: math.typeOf(value).toLowerCase() };
}

/** mathjs's own message, and where a syntax error is. */
function invalid(err: unknown): BrokerError {
  if (err instanceof BrokerError) return err;
  const error = err as Error & { char?: number };
  if (typeof error.char === "number") {
    const position = error.char + 1;
    return new BrokerError(
      "invalid_params",
      `the expression is not valid at character ${position}: ${error.message}`,
      { position },
    );
  }
  return new BrokerError("invalid_params", `the calculator cannot do that: ${error.message}`);
}

function answer(job: MathJob): Record<string, unknown> {
  try {
    if (job.op === "calculate") {
      const value = evaluate(job.expression, new Map()) as unknown;
      if (typeof value === "function") {
        throw new BrokerError(
          "invalid_params",
          "the calculator cannot do that: the expression defines a function but does not call it",
        );
      }
      return { expression: job.expression, ...describe(value) };
    }
    const converted = unit(job.value, job.from).to(job.to);
    return {
      value: rounded(converted.toNumber(job.to)),
      from_unit: job.from,
      to_unit: job.to,
      result: format(converted),
    };
  } catch (err) {
    throw invalid(err);
  }
}

// Compiled once before the first caller's expression, which then does not pay for it.
answer({ op: "calculate", expression: "sqrt(16) + [1, 2] * [3; 4]" });
answer({ op: "calculate", expression: "5 cm + 2 inch to mm" });
serveJobs((job) => answer(job as MathJob));
