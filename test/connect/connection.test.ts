import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { translateClientConfig } from "../../src/config/client-configs/index.js";
import { readDocument } from "../../src/config/read-document.js";
import type { BrokerAddress } from "../../src/connect/client-target.js";
import { CLIENT_TARGETS } from "../../src/connect/clients.js";
import { connectClient } from "../../src/connect/connect-command.js";
import { editJson, planConnection, writeConnection } from "../../src/connect/connection.js";

const folder = () => mkdtempSync(join(tmpdir(), "connect-"));
const client = (id: string) => CLIENT_TARGETS.find((c) => c.id === id)!;
const broker: BrokerAddress = {
  name: "mcp-broker",
  url: "http://127.0.0.1:8100/mcp",
  stdio: {
    command: "/usr/bin/node",
    args: ["/opt/mcp-broker/dist/cli.js", "stdio", "/etc/broker.json"],
  },
  token: { env: "MCP_BROKER_TOKEN" },
};

async function connect(id: string, file: string, to: BrokerAddress = broker): Promise<string> {
  await writeConnection(await planConnection(client(id), to, file));
  return readFileSync(file, "utf8");
}

describe("mcp-broker connect", () => {
  it("writes for each client what the broker itself reads back as a server reaching it", async () => {
    for (const target of CLIENT_TARGETS) {
      const file = target.file({ home: folder(), project: folder(), platform: "linux" });
      const written = await connect(target.id, file);
      const translated = translateClientConfig(readDocument(written, file), file)!;
      const source = translated.config.tree[0]!.source as Record<string, unknown>;
      expect(translated.config.tree[0]!.path, target.id).toBe("/mcp-broker");
      if (target.id === "claude-desktop") {
        expect(source).toMatchObject({
          backend: "stdio",
          command: ["/usr/bin/node", ...broker.stdio!.args],
        });
        continue;
      }
      expect(source, target.id).toMatchObject({ backend: "http", url: broker.url });
      // The token travels by reference, in each client's own words, never as written.
      expect(written, target.id).not.toMatch(/Bearer [A-Za-z0-9]{8,}/);
      expect(written, target.id).toMatch(/MCP_BROKER_TOKEN|input:mcp-broker-token/);
    }
  });

  it("merges into a file that is there, its comments kept, with a backup of what it was", async () => {
    const dir = folder();
    mkdirSync(join(dir, ".vscode"));
    const file = join(dir, ".vscode", "mcp.json");
    const before = `{
  // my servers
  "servers": { "other": { "type": "stdio", "command": "srv" } },
}
`;
    writeFileSync(file, before);
    const after = await connect("vscode", file);
    expect(after).toContain("// my servers");
    expect(after).toContain('"other"');
    expect(after).toContain('"mcp-broker"');
    const backups = readdirSync(join(dir, ".vscode")).filter((f) => f.startsWith("mcp.json.bak-"));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(dir, ".vscode", backups[0]!), "utf8")).toBe(before);
    // Again: the entry is replaced, the input asked for once.
    const again = await connect("vscode", file);
    expect(again.match(/"id": "mcp-broker-token"/g)).toHaveLength(1);
  });

  it("appends to a list once per id, and always where an item has none", () => {
    const input = { path: ["inputs"], value: { id: "a" }, append: true as const };
    const node = { path: ["tree"], value: { path: "/x" }, append: true as const };
    const once = editJson('{"tree": [{"path": "/y"}]}', [input, input, node, node], "f.json");
    expect(JSON.parse(once)).toEqual({
      tree: [{ path: "/y" }, { path: "/x" }, { path: "/x" }],
      inputs: [{ id: "a" }],
    });
  });

  it("appends a table to Codex's TOML, and will not write one that is there", async () => {
    const file = join(folder(), "config.toml");
    writeFileSync(file, 'model = "o4-mini" # mine\n\n[mcp_servers.docs]\ncommand = "docs"\n');
    const after = await connect("codex", file);
    expect(after.startsWith('model = "o4-mini" # mine\n')).toBe(true);
    expect(after).toContain(
      '[mcp_servers.mcp-broker]\nurl = "http://127.0.0.1:8100/mcp"\nbearer_token_env_var = "MCP_BROKER_TOKEN"',
    );
    await expect(planConnection(client("codex"), broker, file)).rejects.toThrow(
      /has \[mcp_servers\.mcp-broker\] already/,
    );
    await expect(
      planConnection(
        client("codex"),
        { ...broker, token: { literal: "t" } },
        join(folder(), "c.toml"),
      ),
    ).rejects.toThrow(/only from an environment variable/);
  });

  it("names the client a mistyped name likely stands for", async () => {
    const options = { url: broker.url, name: broker.name };
    await expect(connectClient("claude_code", undefined, options, "/x/cli.js")).rejects.toThrow(
      /^no client "claude_code" \(did you mean claude-code\?\); the clients are claude-desktop, /,
    );
    await expect(connectClient("zed", undefined, options, "/x/cli.js")).rejects.toThrow(
      /^no client "zed"; the clients are /,
    );
  });

  it("refuses a file it cannot read as its format, and a stdio client without a config", async () => {
    const file = join(folder(), "settings.json");
    writeFileSync(file, "[1, 2");
    await expect(planConnection(client("gemini-cli"), broker, file)).rejects.toThrow(
      /not a JSON object/,
    );
    const { stdio: _, ...withoutConfig } = broker;
    await expect(
      planConnection(client("claude-desktop"), withoutConfig, join(folder(), "c.json")),
    ).rejects.toThrow(/give the broker's config file/);
    expect(existsSync(file)).toBe(true);
  });

  it("writes no header where the broker asks for no token, and the token as written when given so", async () => {
    const { token: _, ...open } = broker;
    expect(await connect("cursor", join(folder(), "mcp.json"), open)).not.toContain(
      "Authorization",
    );
    expect(
      await connect("windsurf", join(folder(), "mcp_config.json"), {
        ...open,
        token: { literal: "tok-1" },
      }),
    ).toContain('"Authorization": "Bearer tok-1"');
  });
});
