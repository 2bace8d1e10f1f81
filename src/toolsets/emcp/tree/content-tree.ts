import type { AliasedSelectQueryBuilder } from "kysely";

/** A document of a tree walk and its distance, in levels, from where the walk began. */
export interface TreeRow {
  id: number;
  depth: number;
}

/** A tree walk as a derived table named `tree`, to join to `site_content`. */
export type TreeRows = AliasedSelectQueryBuilder<TreeRow, "tree">;

/**
 * How the toolset walks the document tree. Evolution 3 keeps a closure table;
 * Evolution 1.x has only `parent`, walked with a recursive query. Both give the
 * same rows, deleted documents included (the tools decide what to show).
 */
export interface ContentTree {
  /** Which walk this is, for the start-up log. */
  readonly kind: "closure table" | "recursive query";
  /**
   * The documents 1 to `depth` levels below `id`, with their level. Below
   * `0`, the tree's top: the documents at levels 1 to `depth` of the site.
   */
  below(id: number, depth: number): TreeRows;
  /** The documents above `id`, nearest first (depth 1 is the parent), at most `depth` of them. */
  above(id: number, depth: number): TreeRows;
}

/** More levels than any real site has: bounds a walk up a `parent` chain that loops. */
export const MAX_TREE_LEVELS = 10_000;
