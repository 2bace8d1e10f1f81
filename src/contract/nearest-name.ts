import SearchableMap from "minisearch/SearchableMap";

/** The longest name looked up with typos allowed: past it, the lookup's work is not worth it. */
export const LONGEST_FUZZY_NAME = 64;

/** Names compared at most: an object's keys come from a caller, and may be many. */
const MOST_NAMES = 1000;

/**
 * How far a name may be from one typed: one edit in a name of three letters
 * or fewer, two up to nine (two letters swapped are two edits), three in a
 * longer one ("create_entity" for "create_entities").
 */
export function editsAllowed(name: string): number {
  return name.length <= 3 ? 1 : name.length <= 9 ? 2 : 3;
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
  let best: { name: string; at: number; edits: number } | undefined;
  for (const [, [other, edits]] of byFolded.fuzzyGet(name.toLowerCase(), editsAllowed(name))) {
    if (best === undefined || edits < best.edits || (edits === best.edits && other.at < best.at))
      best = { ...other, edits };
  }
  return best?.name;
}
