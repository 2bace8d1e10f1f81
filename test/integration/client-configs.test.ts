import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { everythingCommand } from "../helpers/broker.js";
import { cliArgv, runCli } from "../helpers/cli.js";
import { textOf } from "../helpers/mcp-client.js";

const FILESYSTEM_SERVER = fileURLToPath(
  new URL(
    "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
    import.meta.url,
  ),
);

/** A desktop client's config in a folder of its own, with a folder `shared` beside it. */
function desktopConfig(): { folder: string; file: string } {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), "desktop-")));
  mkdirSync(join(folder, "shared"));
  writeFileSync(join(folder, "shared", "hello.txt"), "hello from the shared folder\n");
  const [node, everything] = everythingCommand() as [string, string];
  const file = join(folder, "claude_desktop_config.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        everything: { command: node, args: [everything, "stdio"] },
        // A relative argument: it means the folder beside the config, as its author saw it.
        files: { command: node, args: [FILESYSTEM_SERVER, "shared"] },
        old: { command: node, args: [everything], disabled: true },
      },
    }),
  );
  return { folder, file };
}

describe("a client's config, served as it is", () => {
  it("serves a Claude Desktop config over stdio, started from another folder, each server at /<name>", async () => {
    const { folder, file } = desktopConfig();
    const [command, ...args] = cliArgv("stdio", file, "--log-level", "warn") as [
      string,
      ...string[],
    ];
    const transport = new StdioClientTransport({ command, args, cwd: "/", stderr: "pipe" });
    let stderr = "";
    transport.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const client = new Client({ name: "desktop", version: "1" });
    await client.connect(transport);
    try {
      const tree = await client.callTool({ name: "meta_tree", arguments: { path: "/" } });
      const children = (JSON.parse(textOf(tree)) as { children: { path: string }[] }).children;
      // Beside the broker's own /registry.
      expect(children.map((c) => c.path).sort()).toEqual(["/everything", "/files", "/registry"]);
      const echo = await client.callTool({
        name: "meta_call",
        arguments: { path: "/everything/echo", args: { message: "as it is" } },
      });
      expect(textOf(echo)).toBe("Echo: as it is");
      const read = await client.callTool({
        name: "meta_call",
        arguments: {
          path: "/files/read_text_file",
          args: { path: join(folder, "shared", "hello.txt") },
        },
      });
      expect(textOf(read)).toContain("hello from the shared folder");
      expect(stderr).toContain('server \\"old\\": disabled in the file; left out');
    } finally {
      await client.close();
    }
  });

  it("takes the config alone after serve, and writes its broker equivalent with import", async () => {
    const { folder, file } = desktopConfig();
    const dumped = await runCli("serve", file, "--dump-tree", "--log-level", "error");
    expect(dumped.code).toBe(0);
    expect(dumped.stdout).toContain("everything/");
    expect(dumped.stdout).toContain("files/");

    const out = join(folder, "broker.json");
    const imported = await runCli("import", file, "--out", out);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain('server "old": disabled in the file; left out');
    const written = JSON.parse(readFileSync(out, "utf8")) as { tree: { path: string }[] };
    expect(written.tree.map((n) => n.path)).toEqual(["/everything", "/files"]);
    const checked = await runCli("check-config", out);
    expect(checked.stdout).toMatch(/valid \(3 nodes, 2 sources\)/);
    // Never over a file that is there.
    const again = await runCli("import", file, "--out", out);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("is there already");
    const printed = await runCli("import", file);
    expect(JSON.parse(printed.stdout)).toEqual(written);
    const own = await runCli("import", out);
    expect(own.code).toBe(2);
    expect(own.stderr).toContain("already a broker config");
  });
});
