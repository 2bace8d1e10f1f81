/**
 * What the search index knows of a tool: its texts, field by field, and the
 * path that names it. Made from a tree leaf (tool-documents.ts) or from any
 * list of tools (the evaluation in bench/).
 */
export interface SearchableTool {
  readonly path: string;
  /** The tool's own name: its words weigh most. */
  readonly name: string;
  /** Summary and description. */
  readonly description: string;
  /** Parameter names and their descriptions. */
  readonly parameters: string;
  /** The parameters it requires: a tool requiring `movie_id` needs one that finds movies. */
  readonly requiredParameters?: readonly string[];
  /** Where it sits: the path's segments and the summaries of the nodes above it. */
  readonly context: string;
}
