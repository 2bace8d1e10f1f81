import type { Client, VersionNegotiationMode } from "@modelcontextprotocol/client";
import type { Logger } from "../../contract/log.js";
import { packageVersion } from "../../contract/version.js";
import { DEFAULT_MAX_TOOLS } from "../../config/schema.js";
import type { BackendConnection } from "./backend-transport.js";
import { boundToolLists, type ToolListBounds } from "./bounded-tool-lists.js";
import { InOrderClient } from "./in-order-client.js";
import { DEFAULT_MAX_LIST_PAGES, type Revision } from "./config.js";

const NEGOTIATION: Record<Revision, VersionNegotiationMode> = {
  auto: "auto",
  "2026-07-28": { pin: "2026-07-28" },
  "2025-11-25": "legacy",
};

/** Whether the connection speaks 2026-07-28 or later (revisions are dates, so they compare as text). */
export function speaksModern(client: Client): boolean {
  return (client.getNegotiatedProtocolVersion() ?? "") >= "2026-07-28";
}

export interface BackendClientOptions {
  /** The revision to speak; `auto` probes. */
  readonly revision: Revision;
  /** How long the whole start may take: on stdio, half of it is left to a probe. */
  readonly startTimeoutMs: number;
  /** How much of the backend's tools/list is read. */
  readonly lists: ToolListBounds | undefined;
  readonly log: Logger;
  readonly source: string;
}

/**
 * The SDK client the broker speaks to one backend with: the capabilities it
 * relays for its callers (sampling, elicitation, roots), the revision
 * negotiation the source's config asks for, input rounds left to the caller,
 * and tool lists bounded so that a hostile backend's endless list is cut
 * where it stops fitting instead of failing the start.
 */
export function newBackendClient(
  connection: BackendConnection,
  options: BackendClientOptions,
): Client {
  const client = new InOrderClient(
    { name: "mcp-broker", version: packageVersion },
    {
      capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } },
      versionNegotiation: {
        mode: NEGOTIATION[options.revision],
        // On stdio a probe that gets no answer means a 2025-era server that ignores unknown
        // methods: half the start leaves it the other half for `initialize`.
        ...(connection.pid !== undefined
          ? { probe: { timeoutMs: options.startTimeoutMs / 2 } }
          : {}),
      },
      // Rounds of input are the caller's to answer (input-rounds.ts).
      inputRequired: { autoFulfill: false },
      // Bounded by boundToolLists below, which keeps what fits rather than failing the walk.
      listMaxPages: 0,
    },
  );
  const lists = options.lists ?? { maxTools: DEFAULT_MAX_TOOLS, maxPages: DEFAULT_MAX_LIST_PAGES };
  boundToolLists(client, lists, (why) =>
    options.log.warn(
      { source: options.source, max_tools: lists.maxTools, max_list_pages: lists.maxPages },
      why === "tools"
        ? `the backend lists more than ${lists.maxTools} tools; the rest are left out (max_tools)`
        : `the backend's tools/list goes on past ${lists.maxPages} pages; the rest are left out (max_list_pages)`,
    ),
  );
  return client;
}
