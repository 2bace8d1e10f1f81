import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverNode } from "../../src/mcp-registry/server-node.js";
import type { ServerDetail } from "../../src/mcp-registry/server-json.js";
import { cliArgv, runCli } from "../helpers/cli.js";
import { everythingCommand, fixtureCommand, startBroker } from "../helpers/broker.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

const EVERYTHING_VERSION = (
  JSON.parse(
    readFileSync(
      new URL(
        "../../node_modules/@modelcontextprotocol/server-everything/package.json",
        import.meta.url,
      ),
      "utf8",
    ),
  ) as { version: string }
).version;

/** server.json documents shaped as the registry's own examples and published servers. */
const SERVERS: ServerDetail[] = [
  {
    $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    name: "io.github.modelcontextprotocol/everything",
    description: "The MCP reference test server",
    version: EVERYTHING_VERSION,
    packages: [
      {
        registryType: "npm",
        registryBaseUrl: "https://registry.npmjs.org",
        identifier: "@modelcontextprotocol/server-everything",
        version: EVERYTHING_VERSION,
        transport: { type: "stdio" },
        runtimeHint: "npx",
        packageArguments: [{ type: "positional", value: "stdio" }],
      },
    ],
  },
  {
    name: "io.github.user/local-weather",
    description: "Local MCP server distributed as an npm package.",
    version: "1.0.0",
    packages: [
      {
        registryType: "npm",
        identifier: "@modelcontextprotocol/server-weather",
        version: "1.0.0",
        transport: { type: "stdio" },
        runtimeHint: "npx",
        packageArguments: [
          { type: "positional", valueHint: "config_path", isRequired: true },
          { type: "named", name: "--port", value: "8080" },
        ],
        environmentVariables: [
          {
            name: "API_KEY",
            isSecret: true,
            isRequired: true,
            description: "Your weather API key",
          },
          { name: "UNITS", default: "metric" },
        ],
      },
    ],
  },
  {
    name: "com.example/tenant-api",
    description: "A hosted server per tenant",
    version: "2.1.0",
    remotes: [
      {
        type: "streamable-http",
        url: "https://{tenant}.api.example.com/mcp",
        variables: { tenant: { description: "Your tenant", isRequired: true } },
        headers: [{ name: "X-Api-Key", isSecret: true, isRequired: true }],
      },
    ],
  },
  {
    name: "io.github.evil/shell",
    description: "A package name that is a shell command",
    version: "1.0.0",
    packages: [
      {
        registryType: "npm",
        identifier: "x; rm -rf ~",
        version: "1.0.0",
        transport: { type: "stdio" },
      },
    ],
  },
  {
    name: "io.github.evil/option",
    description: "A version that is an option",
    version: "1.0.0",
    packages: [
      {
        registryType: "pypi",
        identifier: "tool",
        version: "--index-url=http://evil",
        transport: { type: "stdio" },
      },
    ],
  },
];

const official = (server: ServerDetail) => ({
  server,
  _meta: {
    "io.modelcontextprotocol.registry/official": {
      status: "active",
      publishedAt: "2026-10-01T10:30:00Z",
      isLatest: true,
    },
  },
});

let registry: string;
const BUNDLES: Record<string, Uint8Array> = {};
let close: () => void;
beforeAll(async () => {
  // The registry's read API, v0.1, on loopback.
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://registry");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const bundle = BUNDLES[url.pathname];
    if (bundle) {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return res.end(bundle);
    }
    if (url.pathname === "/v0.1/servers") {
      const text = url.searchParams.get("search") ?? "";
      const found = SERVERS.filter((s) => s.name.includes(text)).map(official);
      return send(200, { servers: found, metadata: { count: found.length } });
    }
    const match = /^\/v0\.1\/servers\/([^/]+)\/versions\/([^/]+)$/.exec(url.pathname);
    const found = match && SERVERS.find((s) => s.name === decodeURIComponent(match[1]!));
    if (found && (match![2] === "latest" || decodeURIComponent(match![2]!) === found.version))
      return send(200, official(found));
    send(404, { error: "Server not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // MCPB bundles: a self-contained MCP server, and one whose entry climbs out of its folder.
  const manifest = {
    manifest_version: "0.3",
    name: "raw",
    version: "1.0.0",
    description: "A hand-written MCP server",
    server: {
      type: "node",
      entry_point: "server/index.mjs",
      mcp_config: {
        command: process.execPath,
        args: ["${__dirname}/server/index.mjs"],
        env: { RAW_REVISION: "${user_config.revision}" },
      },
    },
    user_config: { revision: { type: "string", default: "2025-11-25" } },
  };
  const raw = readFileSync(new URL("../fixtures/raw-stdio-server.mjs", import.meta.url));
  BUNDLES["/bundles/raw.mcpb"] = zipSync({
    "manifest.json": strToU8(JSON.stringify(manifest)),
    "server/index.mjs": new Uint8Array(raw),
  });
  BUNDLES["/bundles/slip.mcpb"] = zipSync({
    "manifest.json": strToU8(JSON.stringify(manifest)),
    "../escaped.txt": strToU8("outside"),
  });
  const sha = (path: string) => createHash("sha256").update(BUNDLES[path]!).digest("hex");
  const bundled = (name: string, path: string, fileSha256: string): ServerDetail => ({
    name,
    description: "An MCPB bundle",
    version: "1.0.0",
    packages: [
      {
        registryType: "mcpb",
        identifier: `${registry}${path}`,
        fileSha256,
        transport: { type: "stdio" },
      },
    ],
  });
  SERVERS.push(
    bundled("io.github.user/bundle", "/bundles/raw.mcpb", sha("/bundles/raw.mcpb")),
    bundled("io.github.user/tampered", "/bundles/raw.mcpb", "0".repeat(64)),
    bundled("io.github.user/slip", "/bundles/slip.mcpb", sha("/bundles/slip.mcpb")),
  );
  close = () => server.close();
});
afterAll(() => close?.());

const config = () => {
  const file = join(mkdtempSync(join(tmpdir(), "registry-")), "broker.json");
  writeFileSync(file, '{\n  // mine\n  "tree": []\n}\n');
  return file;
};

describe("the MCP Registry", () => {
  it("registry search lists the servers whose name holds the text", async () => {
    const found = await runCli("registry", "search", "github.user", "--registry", registry);
    expect(found.stdout).toBe(
      "io.github.user/local-weather@1.0.0  Local MCP server distributed as an npm package.\nio.github.user/bundle@1.0.0  An MCPB bundle\nio.github.user/tampered@1.0.0  An MCPB bundle\nio.github.user/slip@1.0.0  An MCPB bundle\n",
    );
  });

  it("adds an npm server to a config, which then serves its tools", async () => {
    const file = config();
    const added = await runCli(
      "add",
      "io.github.modelcontextprotocol/everything",
      file,
      "--registry",
      registry,
    );
    expect(added.code, added.stderr).toBe(0);
    const written = readFileSync(file, "utf8");
    expect(written).toContain("// mine");
    const node = (
      JSON.parse(written.replace("// mine", "")) as {
        tree: { path: string; source: { command: string[] } }[];
      }
    ).tree[0]!;
    expect(node.path).toBe("/everything");
    expect(node.source.command).toEqual([
      "npx",
      "-y",
      `@modelcontextprotocol/server-everything@${EVERYTHING_VERSION}`,
      "stdio",
    ]);
    // npx fetches the package: it needs this machine's way to the npm registry (a private CA),
    // which a source's program gets only when its env names it, as docs/registry.md says.
    const network = Object.fromEntries(
      ["NODE_EXTRA_CA_CERTS", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"].flatMap(
        (name) => (process.env[name] ? [[name, process.env[name]!]] : []),
      ),
    );
    const served = { ...node, source: { ...node.source, env: network } };
    const broker = await startBroker({ registry: { predefined: false }, tree: [served] });
    try {
      const sum = await broker.post("/meta_call", {
        path: "/everything/get-sum",
        args: { a: 1, b: 2 },
      });
      expect(sum.body.output.content[0].text).toBe("The sum of 1 and 2 is 3.");
    } finally {
      await broker.close();
    }
  }, 300_000);

  it("asks for what a server needs, and never writes a secret", async () => {
    const file = config();
    const refused = await runCli(
      "add",
      "io.github.user/local-weather",
      file,
      "--registry",
      registry,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "needs values for its required inputs: give --arg config_path=VALUE",
    );
    const added = await runCli(
      "add",
      "io.github.user/local-weather@1.0.0",
      file,
      "--registry",
      registry,
      "--arg",
      "config_path=/etc/weather.toml",
      "--env",
      "API_KEY=leaked",
    );
    expect(added.code, added.stderr).toBe(0);
    const source = JSON.parse(added.stdout).source;
    expect(source.command).toEqual([
      "npx",
      "-y",
      "@modelcontextprotocol/server-weather@1.0.0",
      "/etc/weather.toml",
      "--port",
      "8080",
    ]);
    expect(source.env).toEqual({ API_KEY: "${API_KEY}", UNITS: "metric" });
    expect(readFileSync(file, "utf8")).not.toContain("leaked");
    expect(added.stderr).toContain(
      "set API_KEY (a secret) in the broker's environment: Your weather API key",
    );
  });

  it("adds an MCPB bundle, its hash checked, unpacked once, started as its manifest says", async () => {
    const file = config();
    const cache = mkdtempSync(join(tmpdir(), "cache-"));
    const added = await runCli(
      "add",
      "io.github.user/bundle",
      file,
      "--registry",
      registry,
      "--cache",
      cache,
    );
    expect(added.code, added.stderr).toBe(0);
    const node = JSON.parse(added.stdout);
    expect(node.source.command[1]).toBe(`${node.source.cwd}/server/index.mjs`);
    expect(node.source.cwd).toMatch(new RegExp(`^${cache}/[0-9a-f]{64}$`));
    expect(node.source.env).toEqual({ RAW_REVISION: "2025-11-25" });
    // Unpacked once: a second add reads it from the cache, without downloading it.
    const kept = BUNDLES["/bundles/raw.mcpb"]!;
    delete BUNDLES["/bundles/raw.mcpb"];
    const again = await runCli(
      "add",
      "io.github.user/bundle",
      config(),
      "--registry",
      registry,
      "--cache",
      cache,
    );
    BUNDLES["/bundles/raw.mcpb"] = kept;
    expect(again.code, again.stderr).toBe(0);
    const broker = await startBroker({ registry: { predefined: false }, tree: [node] });
    try {
      const tree = await broker.post("/meta_tree", { path: "/bundle" });
      expect(tree.body.children.map((c: { path: string }) => c.path)).toEqual(["/bundle/nap"]);
    } finally {
      await broker.close();
    }
  });

  it("asks a person on a terminal for a required input", async () => {
    const file = config();
    // `script` (util-linux) runs the command on a pseudo-terminal, as a person's shell would.
    const argv = cliArgv("add", "io.github.user/local-weather", file, "--registry", registry)
      .map((a) => `'${a}'`)
      .join(" ");
    const child = spawn("script", ["-qfec", argv, "/dev/null"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    await expect.poll(() => out.includes("config_path: "), { timeout: 20_000 }).toBe(true);
    child.stdin!.write("/etc/weather.toml\r");
    await new Promise((resolve) => child.once("close", resolve));
    expect(readFileSync(file, "utf8")).toContain('"/etc/weather.toml"');
  });

  it("adds a remote as an http source, its URL variables filled and its secret header by variable", () => {
    const detail = SERVERS.find((s) => s.name === "com.example/tenant-api")!;
    expect(() => serverNode(detail, { env: {}, args: {} })).toThrow(/give --arg tenant=VALUE/);
    const added = serverNode(detail, { env: {}, args: { tenant: "acme" } });
    expect(added.node).toEqual({
      path: "/tenant-api",
      summary: "A hosted server per tenant",
      source: {
        backend: "http",
        url: "https://acme.api.example.com/mcp",
        headers: { "X-Api-Key": "${X_API_KEY}" },
      },
    });
    expect(added.variables).toEqual([{ name: "X_API_KEY", secret: true }]);
  });

  it("refuses a package that is not one, a server it cannot run, a name that is not there", async () => {
    const refused = async (name: string) =>
      (await runCli("add", name, config(), "--registry", registry)).stderr;
    expect(await refused("io.github.evil/shell")).toContain(
      'refused: "x; rm -rf ~" is not a npm package name',
    );
    expect(await refused("io.github.evil/option")).toContain(
      'refused: "--index-url=http://evil" is not a package version',
    );
    expect(await refused("io.github.user/tampered")).toContain("is not the one the registry names");
    expect(await refused("io.github.user/slip")).toContain("holds an entry outside its folder");
    expect(await refused("io.github.nobody/none")).toContain(
      "has no server io.github.nobody/none@latest",
    );
  });
});

describe("the broker as a registry of what it serves", () => {
  const admin = token("admin", ["*:/**"]);
  const fxOnly = token("fx-only", ["tree:/fx/**", "call:/fx/**"]);
  const tree = [
    {
      path: "/demo",
      summary: "The reference test server",
      source: { backend: "stdio", command: everythingCommand(), name: "demo" },
    },
    { path: "/fx", source: { backend: "stdio", command: fixtureCommand(), name: "fx" } },
  ];

  it("gives anyone its Server Card, and a caller the sources it may see, in the registry's shapes", async () => {
    const broker = await startBroker({
      registry: { predefined: false },
      auth: { tokens: configEntries(admin, fxOnly) },
      tree,
    });
    try {
      const card = await fetch(`${broker.url}/mcp/server-card`);
      expect(card.headers.get("content-type")).toBe("application/mcp-server-card+json");
      expect(await card.json()).toMatchObject({
        $schema: "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json",
        name: "local.mcp-broker/mcp-broker",
        remotes: [
          { type: "streamable-http", url: `${broker.url}/mcp` },
          { type: "sse", url: `${broker.url}/sse` },
        ],
      });
      expect(await (await fetch(`${broker.url}/.well-known/mcp/catalog.json`)).json()).toEqual({
        specVersion: "draft",
        entries: [
          {
            identifier: "urn:air:127.0.0.1:mcp-broker",
            displayName: "mcp-broker",
            type: "application/mcp-server-card+json",
            url: `${broker.url}/mcp/server-card`,
          },
        ],
      });
      expect((await fetch(`${broker.url}/v0.1/servers`)).status).toBe(401);
      const list = async (who: { bearer: string }) =>
        (
          (await (await fetch(`${broker.url}/v0.1/servers`, { headers: bearer(who) })).json()) as {
            servers: {
              server: {
                name: string;
                description: string;
                version: string;
                remotes: { url: string }[];
              };
            }[];
          }
        ).servers.map((s) => s.server);
      expect((await list(fxOnly)).map((s) => s.name)).toEqual([
        "local.mcp-broker/mcp-broker",
        "local.mcp-broker/fx",
      ]);
      const all = await list(admin);
      expect(all.find((s) => s.name === "local.mcp-broker/demo")).toEqual({
        $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        name: "local.mcp-broker/demo",
        title: expect.any(String),
        description: "The reference test server",
        // The backend's own serverInfo.version.
        version: expect.stringMatching(/^\d+\.\d+/),
        remotes: [
          { type: "streamable-http", url: `${broker.url}/mcp/demo` },
          { type: "sse", url: `${broker.url}/sse/demo` },
        ],
      });
      const one = (who: { bearer: string }) =>
        fetch(
          `${broker.url}/v0.1/servers/${encodeURIComponent("local.mcp-broker/demo")}/versions/latest`,
          {
            headers: bearer(who),
          },
        );
      expect((await one(admin)).status).toBe(200);
      expect((await one(fxOnly)).status).toBe(404);
      expect(
        (await fetch(`${broker.url}/mcp/demo/server-card`, { headers: bearer(admin) })).status,
      ).toBe(200);
      expect(
        (await fetch(`${broker.url}/mcp/demo/server-card`, { headers: bearer(fxOnly) })).status,
      ).toBe(404);
    } finally {
      await broker.close();
    }
  });

  it("is a registry another broker adds from", async () => {
    const upstream = await startBroker({ registry: { predefined: false }, tree });
    try {
      const found = await runCli("registry", "search", "demo", "--registry", upstream.url);
      expect(found.stdout).toMatch(/^local\.mcp-broker\/demo@\S+ {2}The reference test server\n$/);
      const added = await runCli(
        "add",
        "local.mcp-broker/demo",
        config(),
        "--registry",
        upstream.url,
      );
      expect(JSON.parse(added.stdout)).toEqual({
        path: "/demo",
        summary: "The reference test server",
        source: { backend: "http", url: `${upstream.url}/mcp/demo` },
      });
    } finally {
      await upstream.close();
    }
  });
});
