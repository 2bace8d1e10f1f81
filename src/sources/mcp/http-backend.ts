import {
  StreamableHTTPClientTransport,
  type ReconnectionScheduler,
} from "@modelcontextprotocol/client";
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
  return () => {
    const transport: StreamableHTTPClientTransport = new StreamableHTTPClientTransport(
      new URL(config.url),
      {
        requestInit: { headers: config.headers ?? {} },
        ...(authProvider ? { authProvider } : {}),
        reconnectionOptions: {
          // Enough for reconnectOnce to hear that its one attempt failed.
          maxRetries: 2,
          initialReconnectionDelay: 250,
          maxReconnectionDelay: 2000,
          reconnectionDelayGrowFactor: 2,
        },
        reconnectionScheduler: reconnectOnce(() => void transport.close()),
      },
    );
    return { transport, describe: endpointWords(config.url), lastWords: () => [] };
  };
}

/**
 * A stream that broke (the session's own, or a call's) is opened again once;
 * if that fails too (nothing listens any more, the session is gone), the
 * connection is `lost`: closed, so the source is down and the supervisor
 * opens a new session with its own backoff. The SDK alone would try again
 * and then only report an error, leaving a server that died up in
 * `/healthz` until a call found it gone.
 */
function reconnectOnce(lost: () => void): ReconnectionScheduler {
  return (reconnect, delay, attempt) => {
    if (attempt > 0) {
      lost();
      return;
    }
    const timer = setTimeout(reconnect, delay);
    return () => clearTimeout(timer);
  };
}

/** A path segment that looks like a key or an id: long, with both letters and digits. */
const OPAQUE = /^(?=.*[A-Za-z])(?=.*\d)[^/]{16,}$/;

/**
 * The endpoint as messages and the log name it: never the query, credentials
 * or a path segment that looks like a key (hosted MCP servers often put the
 * account's secret in the path), which are shown as `…`.
 */
export function endpointWords(url: string): string {
  const { origin, pathname } = new URL(url);
  return origin + pathname.replace(/[^/]+/g, (segment) => (OPAQUE.test(segment) ? "…" : segment));
}
