import SearchableMap from "minisearch/SearchableMap";
import { adjacentSwaps, editsAllowed, LONGEST_FUZZY_NAME } from "../contract/nearest-name.js";
import { lastSegment, normalizePath, parentOf } from "./path.js";

/** Suggestions given for one path that is not there: a model reads them, so few. */
const MOST = 3;

/** A prefix this long or longer counts as the start of a name typed in part. */
const SHORTEST_PREFIX = 3;

interface Candidate {
  readonly path: string;
  /** Typos between the name asked for and this one; a name begun by it counts as more than any. */
  readonly edits: number;
  readonly sibling: boolean;
}

/**
 * The paths of one tree by their last segment, case folded, for what a
 * caller who asked for a path that is not there may have meant: the same
 * name mistyped, in another case, under another node, typed in part, or a
 * tool's name as its backend knows it where the config renamed it.
 * Built at the first miss of a tree (most trees are never asked for one);
 * what a caller may see is the caller's to filter, and the ranking reads
 * nothing but the path asked for and the paths offered, so the answer is the
 * same whether an unseen entry exists there or not.
 */
export class NearPaths {
  private readonly byName = new SearchableMap<string[]>();

  /** `entries` are each path with the other names it is known by (a tool's backend name). */
  constructor(entries: Iterable<readonly [path: string, aliases: readonly string[]]>) {
    for (const [path, aliases] of entries) {
      if (path === "/") continue;
      const names = new Set([lastSegment(path), ...aliases].map((n) => n.toLowerCase()));
      for (const name of names) {
        const holders = this.byName.get(name);
        if (holders) holders.push(path);
        else this.byName.set(name, [path]);
      }
    }
  }

  /** At most three paths near `path` that `offered` lets through, the likeliest first. */
  near(path: string, offered: (path: string) => boolean): string[] {
    const asked = normalizePath(path);
    if (asked === null || asked === "/") return [];
    const name = lastSegment(asked).toLowerCase();
    const parent = parentOf(asked).toLowerCase();
    const found = new Map<string, Candidate>();
    const add = (paths: readonly string[], edits: number) => {
      for (const p of paths) {
        // A path found by two of its names counts by the nearer.
        if (p === asked || (found.get(p)?.edits ?? Infinity) <= edits || !offered(p)) continue;
        found.set(p, { path: p, edits, sibling: parentOf(p).toLowerCase() === parent });
      }
    };
    if (name.length <= LONGEST_FUZZY_NAME) {
      for (const [, [paths, edits]] of this.byName.fuzzyGet(name, editsAllowed(name)))
        add(paths, edits);
      for (const swap of adjacentSwaps(name)) add(this.byName.get(swap) ?? [], 1);
    } else {
      add(this.byName.get(name) ?? [], 0);
    }
    if (name.length >= SHORTEST_PREFIX) {
      for (const [, paths] of this.byName.atPrefix(name)) add(paths, editsAllowed(name) + 1);
    }
    return [...found.values()]
      .sort(
        (a, b) =>
          Number(b.sibling) - Number(a.sibling) ||
          a.edits - b.edits ||
          a.path.length - b.path.length ||
          (a.path < b.path ? -1 : 1),
      )
      .slice(0, MOST)
      .map((c) => c.path);
  }
}
