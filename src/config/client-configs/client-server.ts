/**
 * One MCP server as a client's config describes it, whichever client:
 * what the formats share, read out of each by its own reader, before it
 * becomes a node of the broker's tree (server-node.ts).
 */
export interface ClientServer {
  /** Its key in the client's file. */
  readonly name: string;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly url?: string;
  /** How the client reaches `url`: Streamable HTTP, or the 2024 HTTP+SSE transport. */
  readonly transport?: "http" | "sse";
  readonly headers?: Readonly<Record<string, string>>;
  /** Tool names the client offers, when it limits them. */
  readonly includeTools?: readonly string[];
  /** Tool names the client hides. */
  readonly excludeTools?: readonly string[];
  readonly startTimeoutS?: number;
  readonly description?: string;
}

/** What reading a client's file gave: its servers, and what it could not carry over. */
export interface ReadServers {
  readonly servers: ClientServer[];
  readonly warnings: string[];
}
