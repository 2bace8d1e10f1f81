import { parentOf } from "../tree/path.js";
import { analyze } from "./analyze.js";
import type { SearchableTool } from "./searchable-tool.js";

/** Words of a tool's name that make it one that finds things (stemmed as the index stems). */
const FINDING = new Set(["search", "find", "list", "lookup", "queri"]);
const ID = "id";

/** A tool's prerequisite: the tool that finds the id one of its parameters requires. */
export interface Prerequisite {
  readonly path: string;
  /** The parameter whose value it finds, such as `movie_id`. */
  readonly parameter: string;
}

interface Entry {
  /** The keys (node and thing) under which it is a finder. */
  readonly finds: readonly string[];
  /** The ids it requires: each parameter's name by the key of the thing it names. */
  readonly requires: ReadonlyMap<string, string>;
}

/**
 * Which tool finds the id another tool requires, within one node: a task
 * "who directed Titanic?" needs `search_movie` before `movie_credits
 * (movie_id)`, and no word of the task names the search. A tool requiring
 * `<thing>_id` (or `<thing>Id`, `<thing>_ids`) has as prerequisite a tool
 * of the same node whose name says it searches, finds, lists, looks up or
 * queries that thing, and that does not require such an id itself; of several,
 * the one whose name says least else. Kept current tool by tool, as the
 * index is.
 */
export class Prerequisites {
  private readonly entries = new Map<string, Entry>();
  /** The finders of each thing of each node, by `node NUL thing`, with their names' lengths. */
  private readonly finders = new Map<string, Map<string, number>>();

  put(tool: SearchableTool): void {
    this.remove(tool.path);
    const node = parentOf(tool.path);
    const key = (thing: string) => `${node}\0${thing}`;
    const requires = new Map<string, string>();
    for (const parameter of tool.requiredParameters ?? []) {
      const terms = analyze(parameter);
      if (terms.length >= 2 && terms.at(-1) === ID) requires.set(key(terms.at(-2)!), parameter);
    }
    const nameTerms = analyze(tool.name);
    const finds = nameTerms.some((t) => FINDING.has(t))
      ? nameTerms
          .filter((t) => !FINDING.has(t))
          .map(key)
          .filter((k) => !requires.has(k))
      : [];
    this.entries.set(tool.path, { finds, requires });
    for (const k of finds) {
      let finders = this.finders.get(k);
      if (!finders) this.finders.set(k, (finders = new Map()));
      finders.set(tool.path, nameTerms.length);
    }
  }

  remove(path: string): void {
    const entry = this.entries.get(path);
    if (!entry) return;
    this.entries.delete(path);
    for (const k of entry.finds) {
      const finders = this.finders.get(k)!;
      finders.delete(path);
      if (finders.size === 0) this.finders.delete(k);
    }
  }

  /** The tools that find the ids `path` requires, in the order of its parameters. */
  of(path: string): Prerequisite[] {
    const out: Prerequisite[] = [];
    for (const [k, parameter] of this.entries.get(path)?.requires ?? []) {
      let best: [string, number] | undefined;
      for (const finder of this.finders.get(k) ?? []) {
        if (finder[0] !== path && (!best || finder[1] < best[1])) best = finder;
      }
      if (best) out.push({ path: best[0], parameter });
    }
    return out;
  }
}
