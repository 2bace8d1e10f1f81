import { isEveryInterface, urlHost } from "./listen-address.js";

/** The base URL a person on this machine opens for a listen address. */
export function baseUrl(host: string, port: number): string {
  const name = isEveryInterface(host) ? "localhost" : urlHost(host);
  return `http://${name}:${port}`;
}

/**
 * What `mcp-broker` prints on a terminal once it listens: where to open the
 * console, and the URLs clients are given.
 */
export function listenBanner(host: string, port: number, auth: boolean): string {
  const base = baseUrl(host, port);
  const everywhere = isEveryInterface(host);
  return [
    "",
    `  mcp-broker is listening${everywhere ? " on every interface" : ""}${auth ? " (tokens required)" : ""}`,
    "",
    `  console   ${base}/`,
    `  MCP       ${base}/mcp          one source as itself: ${base}/mcp/<name>`,
    `  REST      POST ${base}/meta_search, /meta_tree, /meta_desc, /meta_call, /meta_run`,
    `  JSON-RPC  ${base}/rpc`,
    `  health    ${base}/healthz`,
    "",
    "",
  ].join("\n");
}
