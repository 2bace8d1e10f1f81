import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** A real SDK client connected to the broker's `/mcp` over Streamable HTTP. */
export async function connectHttp(
  url: string,
  headers: Record<string, string> = {},
): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

export function textOf(result: object): string {
  const content = ((result as { content?: unknown }).content ?? []) as {
    type: string;
    text?: string;
  }[];
  return content.map((c) => c.text ?? "").join("");
}
