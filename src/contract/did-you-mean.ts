import { nearestName } from "./nearest-name.js";

const orList = new Intl.ListFormat("en", { type: "disjunction" });

/**
 * The words an error adds to name what a caller likely meant (paths or tool
 * names, found by NearPaths), so that a model can retry in one step; none
 * where nothing is near.
 *
 * @example
 * `no entry at path /demo/ad${didYouMean(["/demo/add"])}` // "… (did you mean /demo/add?)"
 */
export function didYouMean(near: readonly string[]): string {
  return near.length === 0 ? "" : ` (did you mean ${orList.format(near)}?)`;
}

/**
 * didYouMean for a name among `names` (a source, a client, a function): the
 * one a typo of `name` likely stands for, if any.
 *
 * @example
 * `no source named "memry"${nameMeant("memry", ["memory", "files"])}` // "… (did you mean memory?)"
 */
export function nameMeant(name: string, names: Iterable<string>): string {
  const meant = nearestName(name, names);
  return didYouMean(meant === undefined ? [] : [meant]);
}

/**
 * The words naming a value or key likely meant, quoted as the JSON it is
 * written in: ` (did you mean "celsius"?)`; none for nothing.
 */
export function quotedMeant(meant: string | undefined): string {
  return meant === undefined ? "" : ` (did you mean ${JSON.stringify(meant)}?)`;
}

/**
 * quotedMeant for a text value that is none of `options`: the one a typo
 * of it likely stands for, if any; none for a value that is not text.
 *
 * @example
 * `must be one of "celsius", "fahrenheit"${valueMeant("Celsius", ["celsius", "fahrenheit"])}`
 */
export function valueMeant(given: unknown, options: readonly unknown[]): string {
  if (typeof given !== "string") return "";
  const words = options.filter((option): option is string => typeof option === "string");
  return quotedMeant(nearestName(given, words));
}
