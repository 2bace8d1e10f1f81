import SearchableMap from "minisearch/SearchableMap";

/** The longest name looked up with typos allowed: past it, the lookup's work is not worth it. */
export const LONGEST_FUZZY_NAME = 64;

/** Names compared at most: an object's keys come from a caller, and may be many. */
const MOST_NAMES = 1000;

/**
 * How far a name may be from one typed: one edit in a name of three letters
 * or fewer, two up to nine, three in a longer one ("create_entity" for
 * "create_entities"). Two neighbouring letters swapped count as one edit
 * (adjacentSwaps).
 */
export function editsAllowed(name: string): number {
  return name.length <= 3 ? 1 : name.length <= 9 ? 2 : 3;
}

/**
 * `name` with each two neighbouring letters swapped in turn: the typo of
 * fast typing ("evn" for "env"), which counts as one edit here where the
 * edit distance minisearch measures counts two, too many for a short name.
 */
export function adjacentSwaps(name: string): string[] {
  const swaps: string[] = [];
  for (let i = 0; i + 1 < name.length; i++) {
    if (name[i] !== name[i + 1])
      swaps.push(name.slice(0, i) + name.charAt(i + 1) + name.charAt(i) + name.slice(i + 2));
  }
  return swaps;
}

/**
 * The one of `names` (other than `name` itself) with the fewest typos from
 * `name`, case aside, within editsAllowed; the first such in `names` on a tie.
 *
 * @example
 * nearestName("mesage", ["message", "count"]) // "message"
 */
export function nearestName(name: string, names: Iterable<string>): string | undefined {
  if (name.length > LONGEST_FUZZY_NAME) return undefined;
  const byFolded = new SearchableMap<{ name: string; at: number }>();
  let at = 0;
  for (const other of names) {
    if (at === MOST_NAMES) break;
    const folded = other.toLowerCase();
    if (other !== name && !byFolded.has(folded)) byFolded.set(folded, { name: other, at });
    at++;
  }
  const typed = name.toLowerCase();
  let best: { name: string; at: number; edits: number } | undefined;
  const consider = (other: { name: string; at: number }, edits: number) => {
    if (best === undefined || edits < best.edits || (edits === best.edits && other.at < best.at))
      best = { ...other, edits };
  };
  for (const [, [other, edits]] of byFolded.fuzzyGet(typed, editsAllowed(name)))
    consider(other, edits);
  for (const swap of adjacentSwaps(typed)) {
    const other = byFolded.get(swap);
    if (other) consider(other, 1);
  }
  return best?.name;
}
