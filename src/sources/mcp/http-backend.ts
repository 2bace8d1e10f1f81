import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { HttpSourceConfig } from "./config.js";
import type { ConnectBackend } from "./backend-transport.js";

/** A remote MCP server over Streamable HTTP; each connection is a new MCP session. */
export function httpBackend(config: HttpSourceConfig): ConnectBackend {
  return () => ({
    transport: new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers ?? {} },
      // Reconnecting the whole session is the supervisor's job, with its own backoff.
      reconnectionOptions: {
        maxRetries: 2,
        initialReconnectionDelay: 250,
        maxReconnectionDelay: 2000,
        reconnectionDelayGrowFactor: 2,
      },
    }),
    // Never the query or credentials: they may hold secrets.
    describe: (({ origin, pathname }) => origin + pathname)(new URL(config.url)),
    lastWords: () => [],
  });
}
