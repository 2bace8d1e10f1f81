/**
 * A minimal Streamable HTTP MCP client for load: it initializes a session, then
 * posts one pre-serialized `tools/call` over and over and reads the answer as
 * text. Far cheaper per call than the SDK client, so that on a small machine
 * the servers' costs, not the load generator's, decide the throughput.
 */
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

export async function rawToolCaller(
  url: string,
  tool: string,
  args: unknown,
): Promise<() => Promise<void>> {
  const init = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    }),
  });
  const session = init.headers.get("mcp-session-id");
  const version = "2025-11-25";
  await init.text();
  const headers: Record<string, string> = { ...HEADERS, "mcp-protocol-version": version };
  if (session) headers["mcp-session-id"] = session;
  await (
    await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).text();
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: tool, arguments: args },
  });
  return async () => {
    const res = await fetch(url, { method: "POST", headers, body });
    const text = await res.text();
    if (!res.ok || !text.includes('"result"'))
      throw new Error(`tools/call failed: ${res.status} ${text.slice(0, 200)}`);
  };
}
