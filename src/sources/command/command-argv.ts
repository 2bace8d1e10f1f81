import { BrokerError } from "../../contract/errors.js";

/** A tool's command line: fixed elements, and per argument the elements it adds. */
export interface ArgvTemplate {
  readonly argv: readonly string[];
  /**
   * For each argument, the elements appended when it is given, in the order
   * of this record; an element that is exactly `{value}` becomes the value
   * (once per item for an array). `true` adds the elements, `false` nothing.
   */
  readonly arguments?: Readonly<Record<string, readonly string[]>> | undefined;
}

const VALUE = "{value}";

/**
 * The argv of one call. Arguments only ever become whole elements of their
 * own: no shell, no splicing into a string, nothing the template did not name.
 */
export function callArgv(template: ArgvTemplate, args: Record<string, unknown>): string[] {
  const argv = [...template.argv];
  const mapped = template.arguments ?? {};
  for (const name of Object.keys(args)) {
    if (!(name in mapped))
      throw new BrokerError(
        "invalid_params",
        `unknown argument '${name}': this tool takes ${Object.keys(mapped).join(", ") || "no arguments"}`,
      );
  }
  for (const [name, elements] of Object.entries(mapped)) {
    const value = args[name];
    if (value === undefined || value === null || value === false) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (typeof item === "object" && item !== null)
        throw new BrokerError(
          "invalid_params",
          `argument '${name}' must be a string, number or boolean`,
        );
      for (const element of elements) argv.push(element === VALUE ? String(item) : element);
    }
  }
  return argv;
}
