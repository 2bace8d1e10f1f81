import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";

/**
 * Hands a session's transport a POST of `body` as if its client had sent it
 * to `endpoint` (within session `sessionId`, when given): how an instance
 * replays on its own copy of a session what the client did elsewhere.
 * Resolves once the answer has been read to its end.
 */
export async function postInternally(
  transport: WebStandardStreamableHTTPServerTransport,
  endpoint: string,
  body: unknown,
  sessionId?: string,
): Promise<void> {
  const response = await transport.handleRequest(
    new Request(`http://mcp-broker${endpoint}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(sessionId === undefined ? {} : { "mcp-session-id": sessionId }),
      },
      body: JSON.stringify(body),
    }),
  );
  await response.text();
}
