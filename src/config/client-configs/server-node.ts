import type { ClientServer } from "./client-server.js";

/** What a source's `name` (and so `/mcp/<name>`) may be made of. */
const NAME_CHARACTERS = /[^A-Za-z0-9_-]+/g;

/**
 * Each client's server as a node of the broker's tree, `/<name>`, whose
 * source has the same name (served alone at `/mcp/<name>`): a program over
 * stdio, or a URL over Streamable HTTP. What does not carry over is said in
 * `warnings`, naming the server.
 */
export function serverNodes(
  servers: readonly ClientServer[],
  warnings: string[],
): Record<string, unknown>[] {
  const taken = new Set<string>();
  const nodes: Record<string, unknown>[] = [];
  for (const server of servers) {
    const source = sourceOf(server, warnings);
    if (!source) continue;
    const name = uniqueName(server.name, taken);
    if (name !== server.name)
      warnings.push(
        `server "${server.name}": mounted as /${name} (names are letters, digits, _ and -)`,
      );
    const filter = [
      ...(server.includeTools ?? []),
      ...(server.excludeTools ?? []).map((tool) => `!${tool}`),
    ];
    nodes.push({
      path: `/${name}`,
      ...(server.description ? { summary: server.description } : {}),
      source: {
        ...source,
        name,
        ...(filter.length > 0 ? { tool_filter: filter } : {}),
        ...(server.startTimeoutS !== undefined ? { start_timeout_s: server.startTimeoutS } : {}),
      },
    });
  }
  return nodes;
}

function sourceOf(server: ClientServer, warnings: string[]): Record<string, unknown> | undefined {
  const said = (what: string) => warnings.push(`server "${server.name}": ${what}`);
  if (server.command !== undefined) {
    if (server.url !== undefined) said("has both a command and a URL; the URL is ignored");
    if (server.headers !== undefined) said("headers are for a URL; ignored beside a command");
    return {
      backend: "stdio",
      command: [server.command, ...(server.args ?? [])],
      ...(server.env && Object.keys(server.env).length > 0 ? { env: server.env } : {}),
      ...(server.cwd !== undefined ? { cwd: server.cwd } : {}),
    };
  }
  if (server.url !== undefined) {
    if (server.args !== undefined || server.env !== undefined || server.cwd !== undefined)
      said("args, env and cwd are for a command; ignored beside a URL");
    if (server.transport === "sse")
      said(
        "the broker reaches servers over Streamable HTTP, not the older HTTP+SSE transport: it starts only if the server also answers Streamable HTTP at that URL (often /mcp rather than /sse)",
      );
    return {
      backend: "http",
      url: server.url,
      ...(server.headers && Object.keys(server.headers).length > 0
        ? { headers: server.headers }
        : {}),
    };
  }
  said("has neither a command nor a URL; left out");
  return undefined;
}

function uniqueName(wanted: string, taken: Set<string>): string {
  const base = wanted.replace(NAME_CHARACTERS, "-").replace(/^-+|-+$/g, "") || "server";
  let name = base;
  for (let i = 2; taken.has(name.toLowerCase()); i++) name = `${base}-${i}`;
  taken.add(name.toLowerCase());
  return name;
}
