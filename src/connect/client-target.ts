/** How the broker is reached: by URL, or by the program a client starts. */
export interface BrokerAddress {
  /** The key the broker gets in the client's list of servers. */
  readonly name: string;
  /** The MCP endpoint, such as http://127.0.0.1:8100/mcp. */
  readonly url: string;
  /** `mcp-broker stdio CONFIG`, as argv, for clients that start their servers; absent without a config. */
  readonly stdio?: { readonly command: string; readonly args: readonly string[] };
  /** The bearer token to send: by the environment variable that holds it, or as written. */
  readonly token?: { readonly env: string } | { readonly literal: string };
}

/** A change to a JSON (or JSONC) file: the value at a path of keys. */
export interface JsonEdit {
  readonly path: readonly (string | number)[];
  readonly value: unknown;
  /** Appended to the array at `path` (made if missing), unless an item with the same `id` is there. */
  readonly append?: true;
}

/** What a client needs: edits of its JSON file, or a TOML table added to its file. */
export type ClientEntry =
  | { readonly format: "json"; readonly edits: readonly JsonEdit[] }
  | { readonly format: "toml"; readonly table: readonly string[]; readonly text: string };

/**
 * One client `mcp-broker connect` knows, the way a Kysely dialect is one
 * object: where its file is, and what goes in it to reach the broker.
 */
export interface ClientTarget {
  readonly id: string;
  readonly title: string;
  /** Its file on this machine: `home` is the user's, `project` the folder connect runs in. */
  file(where: { home: string; project: string; platform: NodeJS.Platform }): string;
  /** Whether it asks a person for the token itself, rather than reading a variable. */
  readonly promptsForToken?: true;
  /** What reaches the broker, or why it cannot from what was given. */
  entry(broker: BrokerAddress): ClientEntry | string;
  /** Also worth saying: the client's own command that does the same, what it cannot do. */
  notes?(broker: BrokerAddress): string[];
}
