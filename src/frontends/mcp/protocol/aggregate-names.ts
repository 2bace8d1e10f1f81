/**
 * Names and URIs of resources and prompts in the aggregated `/mcp`, where the
 * sources' own may collide: each is qualified by its source's name, in a form
 * that maps back to the source and its own name or URI exactly.
 *
 * - prompt or resource name: `<source>__<name>` (like flat tool names);
 * - URI: `mcp-broker://<source>/<the source's URI, percent-encoded>`;
 * - URI template: the same, with its `{expressions}` left as they are, so a
 *   client that expands it gets a URI that maps back.
 */

const SCHEME = "mcp-broker://";

export function qualifiedName(source: string, name: string): string {
  return `${source}__${name}`;
}

export function qualifiedUri(source: string, uri: string): string {
  return `${SCHEME}${source}/${encodeURIComponent(uri)}`;
}

export function qualifiedUriTemplate(source: string, template: string): string {
  const parts = template.split(/(\{[^}]*\})/);
  return `${SCHEME}${source}/${parts.map((p) => (p.startsWith("{") ? p : encodeURIComponent(p))).join("")}`;
}

/** The source and its own name, given the known source names (the longest that fits wins). */
export function splitName(
  qualified: string,
  sources: readonly string[],
): { source: string; name: string } | undefined {
  const source = sources
    .filter((s) => qualified.startsWith(`${s}__`) && qualified.length > s.length + 2)
    .sort((a, b) => b.length - a.length)[0];
  return source === undefined ? undefined : { source, name: qualified.slice(source.length + 2) };
}

export function splitUri(qualified: string): { source: string; uri: string } | undefined {
  if (!qualified.startsWith(SCHEME)) return undefined;
  const rest = qualified.slice(SCHEME.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return undefined;
  try {
    return { source: rest.slice(0, slash), uri: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return undefined;
  }
}
