import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
  type ClientOptions as ModernClientOptions,
} from "@modelcontextprotocol/client";

/** A real SDK client connected over Streamable HTTP to `/mcp` or to `/mcp/<name>`. */
/** The meta tools as `tools/list` gives them, in order, to a caller who may run scripts. */
export const META_TOOL_NAMES = ["meta_tree", "meta_desc", "meta_search", "meta_call", "meta_run"];

export async function connectHttp(
  url: string,
  headers: Record<string, string> = {},
  options: { path?: string; client?: ClientOptions } = {},
): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" }, options.client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}${options.path ?? "/mcp"}`), {
      requestInit: { headers },
    }),
  );
  return client;
}

/** A real SDK client talking to a server process directly over stdio. */
export async function connectStdio(
  argv: string[],
  options: { client?: ClientOptions } = {},
): Promise<Client> {
  const [command, ...args] = argv as [string, ...string[]];
  const client = new Client({ name: "test-client", version: "1.0.0" }, options.client);
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  return client;
}

export function textOf(result: object): string {
  const content = ((result as { content?: unknown }).content ?? []) as {
    type: string;
    text?: string;
  }[];
  return content.map((c) => c.text ?? "").join("");
}

/** One raw JSON-RPC POST to an MCP endpoint, as a client library would send it. */
export function postMcp(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The `initialize` request a 2025-11-25 client sends first. */
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "test-client", version: "1.0.0" },
  },
};

/** A session opened with raw posts, as a client does it: the headers of its later requests. */
export async function openRawSession(url: string): Promise<Record<string, string>> {
  const res = await postMcp(url, INITIALIZE);
  await res.text();
  const headers = {
    "mcp-session-id": res.headers.get("mcp-session-id")!,
    "mcp-protocol-version": "2025-11-25",
  };
  await (
    await postMcp(url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
  ).text();
  return headers;
}

/**
 * A real SDK 2.x client speaking revision 2026-07-28 (pinned: no fallback to
 * `initialize`) over Streamable HTTP.
 */
export async function connectModern(
  url: string,
  headers: Record<string, string> = {},
  options: { path?: string; client?: ModernClientOptions } = {},
): Promise<ModernClient> {
  const client = new ModernClient(
    { name: "test-client", version: "2.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, ...options.client },
  );
  await client.connect(
    new ModernHttpTransport(new URL(`${url}${options.path ?? "/mcp"}`), {
      requestInit: { headers },
    }),
  );
  return client;
}
