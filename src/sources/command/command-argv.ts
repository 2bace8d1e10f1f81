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

/** Where a command stops reading options: what follows is taken as values. */
const END_OF_OPTIONS = "--";

/**
 * The argv of one call. Arguments only ever become whole elements of their
 * own: no shell, no splicing into a string, nothing the template did not name.
 * Nor an option the template did not name: a text value that begins with "-"
 * in a place of its own (the first element of its mapping, before any "--")
 * is refused, since the command would read `--output=/etc/x` there as an
 * option. After an option of the mapping (`["-e", "{value}"]`) it is that
 * option's value, and after "--" a value like any other.
 */
export function callArgv(template: ArgvTemplate, args: Record<string, unknown>): string[] {
  const argv = [...template.argv];
  let optionsEnded = argv.includes(END_OF_OPTIONS);
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
      elements.forEach((element, at) => {
        if (element !== VALUE) {
          optionsEnded ||= element === END_OF_OPTIONS;
          argv.push(element);
          return;
        }
        if (at === 0 && !optionsEnded && typeof item === "string" && item.startsWith("-"))
          throw new BrokerError(
            "invalid_params",
            `argument '${name}' must not begin with "-": the command would take ${JSON.stringify(item.length > 40 ? `${item.slice(0, 40)}…` : item)} as an option, not as a value`,
          );
        argv.push(String(item));
      });
    }
  }
  return argv;
}
