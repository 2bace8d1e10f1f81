import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { HttpSourceConfig } from "./config.js";
import type { ConnectBackend } from "./backend-transport.js";
import { ClientCredentials } from "./client-credentials.js";

/**
 * A remote MCP server over Streamable HTTP; each connection is a new MCP
 * session. With `auth.client_credentials`, the broker's own token (kept
 * across reconnections) goes with every request.
 */
export function httpBackend(config: HttpSourceConfig): ConnectBackend {
  const grant = config.auth?.client_credentials;
  const authProvider = grant && new ClientCredentials(config.url, grant);
  return () => ({
    transport: new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers ?? {} },
      ...(authProvider ? { authProvider } : {}),
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
