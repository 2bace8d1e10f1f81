import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { afterEach, describe, expect, it } from "vitest";
import { fixtureCommand, writeConfig } from "../helpers/broker.js";
import { cliArgv } from "../helpers/cli.js";
import { connectStdio, META_TOOL_NAMES, textOf } from "../helpers/mcp-client.js";

const config = writeConfig({
  registry: { predefined: false },
  tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand(), name: "fx" } }],
});
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const client of opened.splice(0)) await client.close().catch(() => undefined);
});

/** A 2026-07-28 client of `mcp-broker stdio`, answering sampling requests with `answer`. */
async function modernStdio(configFile = config, ...flags: string[]): Promise<ModernClient> {
  const [command, ...args] = cliArgv("stdio", configFile, "--log-level", "silent", ...flags) as [
    string,
    ...string[],
  ];
  const client = new ModernClient(
    { name: "desktop", version: "2" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { sampling: {} } },
  );
  client.setRequestHandler("sampling/createMessage", async () => ({
    role: "assistant",
    model: "stand-in",
    content: { type: "text", text: "over stdio" },
  }));
  await client.connect(new ModernStdio({ command, args, stderr: "ignore" }));
  opened.push(client);
  return client;
}

describe("mcp-broker stdio, both revisions", () => {
  it("serves a 2026-07-28 client: no initialize, the tree, calls, and bridged sampling", async () => {
    const client = await modernStdio();
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(META_TOOL_NAMES);
    const asked = await client.callTool({
      name: "meta_call",
      arguments: { path: "/fx/ask", args: { question: "?" } },
    });
    expect(textOf(asked)).toBe("answer: over stdio");
  });

  it("tells a 2026-07-28 client that holds a subscriptions/listen stream when the tree changes", async () => {
    const client = await modernStdio();
    const stream = await client.listen({ toolsListChanged: true });
    let heard = 0;
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      heard += 1;
    });
    await client.callTool({
      name: "meta_call",
      arguments: { path: "/fx/add_tool", args: { name: "late" } },
    });
    await expect.poll(() => heard, { timeout: 5000 }).toBeGreaterThan(0);
    await stream.close();
  });

  it("serves one source as itself to a 2026-07-28 client (--server)", async () => {
    const client = await modernStdio(config, "--server", "fx");
    const pid = await client.callTool({ name: "pid", arguments: {} });
    expect(Number(textOf(pid))).toBeGreaterThan(0);
  });

  it("refuses a backend's request outside calls as soon as the client turns out to speak 2026-07-28", async () => {
    const asking = writeConfig({
      registry: { predefined: false },
      tree: [
        {
          path: "/fx",
          source: {
            backend: "stdio",
            command: fixtureCommand(),
            env: { FIXTURE_ROOTS_AT_START: "1" },
          },
        },
      ],
    });
    const client = await modernStdio(asking);
    const said = async () =>
      textOf(
        await client.callTool({
          name: "meta_call",
          arguments: { path: "/fx/roots_at_start", args: {} },
        }),
      );
    // Not after the 30 s a 2025-era client's handshake is waited for.
    await expect.poll(said, { timeout: 10_000 }).toMatch(/^refused: /);
    expect(await said()).toContain(
      "roots/list cannot reach the client: it speaks 2026-07-28, whose clients are asked for input only during a call",
    );
  });

  it("still serves a 2025-era client that opens with initialize", async () => {
    const client = await connectStdio(cliArgv("stdio", config, "--log-level", "silent"));
    opened.push(client);
    expect(client.getServerVersion()).toMatchObject({ name: "mcp-broker" });
    const tree = await client.callTool({ name: "meta_tree", arguments: { path: "/fx" } });
    expect(textOf(tree)).toContain("/fx/ask");
  });
});
