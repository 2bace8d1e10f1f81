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
