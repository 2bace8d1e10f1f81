import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeConfig } from "../helpers/broker.js";
import { cliArgv } from "../helpers/cli.js";
import { textOf } from "../helpers/mcp-client.js";

const filesystemServer = fileURLToPath(
  new URL(
    "../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
    import.meta.url,
  ),
);

const folder = (prefix: string) => realpathSync(mkdtempSync(join(tmpdir(), prefix)));
const first = folder("mcp-broker-client-root-");
const second = folder("mcp-broker-client-root-");
const configured = folder("mcp-broker-source-root-");

let client: Client;
let roots = [first];
let asked = 0;

beforeAll(async () => {
  const config = writeConfig({
    expose: "flat",
    registry: { predefined: false },
    tree: [
      // Started with no folder: it serves the roots its client gives, as it would directly.
      {
        path: "/files",
        source: { backend: "stdio", command: [process.execPath, filesystemServer] },
      },
      {
        path: "/pinned",
        source: {
          backend: "stdio",
          command: [process.execPath, filesystemServer],
          roots: [configured],
        },
      },
    ],
  });
  const [command, ...args] = cliArgv("stdio", config) as [string, ...string[]];
  client = new Client(
    { name: "desktop", version: "1" },
    { capabilities: { roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => {
    asked += 1;
    return { roots: roots.map((path) => ({ uri: pathToFileURL(path).href, name: "work" })) };
  });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
});
afterAll(async () => {
  await client?.close();
});

const allowed = async (tool: string) =>
  textOf(await client.callTool({ name: tool, arguments: {} }));

describe("mcp-broker stdio, one client", () => {
  it("gives a backend that asks outside any call the client's roots, as the client would", async () => {
    await expect
      .poll(() => allowed("files__list_allowed_directories"), { timeout: 20_000 })
      .toBe(`Allowed directories:\n${first}`);
    expect(asked).toBeGreaterThan(0);
  });

  it("passes on the client's word that its roots changed, and the backend asks again", async () => {
    roots = [second];
    await client.sendRootsListChanged();
    await expect
      .poll(() => allowed("files__list_allowed_directories"), { timeout: 20_000 })
      .toBe(`Allowed directories:\n${second}`);
  });

  it("leaves a source with roots of its own to them", async () => {
    await expect
      .poll(() => allowed("pinned__list_allowed_directories"), { timeout: 20_000 })
      .toBe(`Allowed directories:\n${configured}`);
  });
});
