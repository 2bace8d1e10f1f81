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
