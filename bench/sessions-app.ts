/**
 * Streamable HTTP sessions at `/mcp` behind Hono, the way the SDK's examples
 * serve them: an `initialize` without `Mcp-Session-Id` gets a transport (and
 * server) of its own from `open`, and later requests are routed to it by
 * that header. Shared by the benchmarks' in-process servers and gateways.
 */
import { Hono } from "hono";

interface SessionTransport {
  handleRequest(request: Request): Promise<Response>;
}

export function sessionsApp<T extends SessionTransport>(
  /** A new session's transport, connected; it calls `keep` with its id once initialized. */
  open: (keep: (sessionId: string) => void) => Promise<T>,
): Hono {
  const sessions = new Map<string, T>();
  const app = new Hono();
  app.all("/mcp", async (c) => {
    const id = c.req.header("mcp-session-id");
    const existing = id === undefined ? undefined : sessions.get(id);
    if (existing) return existing.handleRequest(c.req.raw);
    const transport: T = await open((sessionId) => void sessions.set(sessionId, transport));
    return transport.handleRequest(c.req.raw);
  });
  return app;
}
