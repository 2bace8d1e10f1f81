import { keyMeant } from "../../contract/key-meant.js";

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

/**
 * Says, for each field of a server's entry that its format's schema does not
 * read, why it is ignored (`ignored` names the fields a client has and the
 * broker has no use for), or that it is unknown.
 */
export function sayIgnoredFields(
  entry: object,
  known: object,
  ignored: Readonly<Record<string, string>>,
  said: (what: string) => void,
): void {
  for (const field of Object.keys(entry)) {
    if (field in known) continue;
    const why = ignored[field];
    said(
      why
        ? `"${field}" ignored: ${why}`
        : `unknown field "${field}" ignored${keyMeant(field, Object.keys(known), entry)}`,
    );
  }
}

/** What reading a client's file gave: its servers, and what it could not carry over. */
export interface ReadServers {
  readonly servers: ClientServer[];
  readonly warnings: string[];
}
