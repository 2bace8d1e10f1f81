import { z } from "zod";
import { quotedMeant, valueMeant } from "./did-you-mean.js";
import { nearestName } from "./nearest-name.js";

/**
 * A zod error map that words a key an object does not take with the key of
 * that object it likely stands for, so that a person or a model can correct
 * it in one step: `Unrecognized key: "arg" (did you mean "args"?)`; and a
 * text that is none of the options, with the option it likely stands for
 * (`"flta"`: `Invalid option: expected one of "meta"|"flat"|"both" (did you
 * mean "flat"?)`). Every other issue keeps zod's own words.
 *
 * @example
 * schema.safeParse(input, KEY_MEANT)
 */
export const KEY_MEANT: z.core.ParseContext<z.core.$ZodIssue> = {
  error: (issue) => unrecognizedKeys(issue) ?? optionMeant(issue),
};

function optionMeant(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== "invalid_value") return undefined;
  // One value is a literal: zod's words for it stay.
  if (issue.values.filter((v) => typeof v === "string").length < 2) return undefined;
  const meant = valueMeant(issue.input, issue.values);
  if (meant === "") return undefined;
  return `Invalid option: expected one of ${z.core.util.joinValues(issue.values, "|")}${meant}`;
}

/** What of a zod object schema's definition says which keys it takes. */
interface ObjectParts {
  readonly _zod?: { readonly def?: { readonly shape?: Readonly<Record<string, unknown>> } };
}

function unrecognizedKeys(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== "unrecognized_keys") return undefined;
  // The object that refused the keys: its shape holds the keys it takes.
  const known = Object.keys((issue.inst as ObjectParts | undefined)?._zod?.def?.shape ?? {});
  const given = issue.input as object;
  const keys = issue.keys.map((key) => `${JSON.stringify(key)}${keyMeant(key, known, given)}`);
  return `Unrecognized key${keys.length === 1 ? "" : "s"}: ${keys.join(", ")}`;
}

/**
 * The words naming the one of `keys` that a key an object does not take
 * likely stands for, ` (did you mean "args"?)`, or none. A key `given` holds
 * as well is not the one meant ("args" beside a stray "arg").
 *
 * @example
 * `unknown field "header" ignored${keyMeant("header", ["url", "headers"], entry)}`
 */
export function keyMeant(key: string, keys: readonly string[], given: object): string {
  const known = keys.filter((k) => !Object.hasOwn(given, k));
  return quotedMeant(nearestName(key, known) ?? wordMissing(key, known));
}

/**
 * The one key that is `key` with a word more or less at an underscore
 * (`function` for `function_name`, `tool_filter_list` for `tool_filter`),
 * too far in typos to be found as one.
 */
function wordMissing(key: string, known: readonly string[]): string | undefined {
  const near = known.filter((k) => k.startsWith(`${key}_`) || key.startsWith(`${k}_`));
  return near.length === 1 ? near[0] : undefined;
}
