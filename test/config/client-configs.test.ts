import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { translateClientConfig } from "../../src/config/client-configs/index.js";
import { ConfigError } from "../../src/config/errors.js";
import { loadConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import { ConfigSchema } from "../../src/sources/kinds.js";

/** Writes `text` as `name` in a new folder and loads it as `mcp-broker serve` would. */
async function load(
  name: string,
  text: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ config: Config; warnings: string[]; file: string }> {
  const file = join(mkdtempSync(join(tmpdir(), "client-config-")), name);
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, text);
  const warnings: string[] = [];
  const config = await loadConfig(file, ConfigSchema, { env, warn: (w) => warnings.push(w) });
  return { config, warnings, file };
}

async function problemsOf(name: string, text: string): Promise<string> {
  try {
    await load(name, text);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems.join("\n");
  }
  throw new Error("expected the file to be refused");
}

const nodes = (config: Config) =>
  config.tree as { path: string; summary?: string; source: Record<string, unknown> }[];

describe("a client's list of servers as the config", () => {
  it("reads Claude Desktop's claude_desktop_config.json: each server a node, its argv kept word for word", async () => {
    const { config, warnings, file } = await load(
      "claude_desktop_config.json",
      JSON.stringify({
        mcpServers: {
          filesystem: {
            command: "npx",
            args: [
              "-y",
              "@modelcontextprotocol/server-filesystem",
              "/Users/me/Desktop",
              "a b; rm -rf ~",
            ],
          },
          github: {
            command: "docker",
            args: [
              "run",
              "-i",
              "--rm",
              "-e",
              "GITHUB_PERSONAL_ACCESS_TOKEN",
              "ghcr.io/github/github-mcp-server",
            ],
            env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}" },
          },
        },
      }),
      { GITHUB_TOKEN: "ghp_example" },
    );
    expect(warnings).toEqual([]);
    expect(nodes(config)).toEqual([
      {
        path: "/filesystem",
        source: expect.objectContaining({
          backend: "stdio",
          name: "filesystem",
          // Whole argv elements: nothing is split or given to a shell.
          command: [
            "npx",
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/Users/me/Desktop",
            "a b; rm -rf ~",
          ],
          // A server runs in the config file's folder unless it says otherwise.
          cwd: join(file, ".."),
        }),
      },
      {
        path: "/github",
        source: expect.objectContaining({
          command: [
            "docker",
            "run",
            "-i",
            "--rm",
            "-e",
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "ghcr.io/github/github-mcp-server",
          ],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_example" },
        }),
      },
    ]);
  });

  it("reads Claude Code's .mcp.json: http with headers, ${VAR:-default}, sse named for what it is", async () => {
    const { config, warnings } = await load(
      ".mcp.json",
      JSON.stringify({
        mcpServers: {
          api: {
            type: "http",
            url: "${API_BASE_URL:-https://api.example.com}/mcp",
            headers: { Authorization: "Bearer ${API_KEY}" },
          },
          legacy: { type: "sse", url: "https://old.example.com/sse" },
          local: { type: "stdio", command: "/usr/local/bin/srv", args: [], env: {} },
        },
      }),
      { API_KEY: "k-123" },
    );
    const [api, legacy, local] = nodes(config);
    expect(api!.source).toMatchObject({
      backend: "http",
      url: "https://api.example.com/mcp",
      headers: { Authorization: "Bearer k-123" },
    });
    expect(legacy!.source).toMatchObject({ backend: "http", url: "https://old.example.com/sse" });
    expect(warnings.join("\n")).toMatch(
      /server "legacy": .*Streamable HTTP, not the older HTTP\+SSE/,
    );
    expect(local!.source).toMatchObject({ command: ["/usr/local/bin/srv"] });
    expect(local!.source.env).toBeUndefined();
  });

  it("reads Cursor's, Windsurf's and Cline's: ${env:NAME}, serverUrl, disabled and autoApprove", async () => {
    const { config, warnings } = await load(
      "mcp.json",
      JSON.stringify({
        mcpServers: {
          cursorish: { url: "https://mcp.example.com/mcp", headers: { "X-Key": "${env:KEY}" } },
          windsurfish: { serverUrl: "https://ws.example.com/mcp" },
          clineish: {
            type: "streamableHttp",
            url: "https://c.example.com/mcp",
            autoApprove: ["read"],
            timeout: 60,
          },
          off: { command: "srv", disabled: true },
        },
      }),
      { KEY: "v" },
    );
    expect(nodes(config).map((n) => [n.path, n.source.url, n.source.headers])).toEqual([
      ["/cursorish", "https://mcp.example.com/mcp", { "X-Key": "v" }],
      ["/windsurfish", "https://ws.example.com/mcp", undefined],
      ["/clineish", "https://c.example.com/mcp", undefined],
    ]);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /server "clineish": "autoApprove" ignored: approvals are the broker's policy/,
        ),
        expect.stringMatching(/server "clineish": "timeout" ignored/),
        expect.stringMatching(/server "off": disabled in the file; left out/),
      ]),
    );
  });

  it("names the field a mistyped one likely stands for, among those the entry lacks", async () => {
    const { warnings } = await load(
      "claude_desktop_config.json",
      JSON.stringify({
        mcpServers: {
          fs: { command: "srv", comand: "x", zzz: 1 },
          web: { url: "https://mcp.example.com/mcp", header: { a: "b" } },
        },
      }),
    );
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/server "fs": unknown field "comand" ignored$/),
        expect.stringMatching(/server "fs": unknown field "zzz" ignored$/),
        expect.stringMatching(
          /server "web": unknown field "header" ignored \(did you mean "headers"\?\)$/,
        ),
      ]),
    );
  });

  it("reads Gemini CLI's settings.json: httpUrl, cwd, $VAR in env, includeTools and excludeTools", async () => {
    const { config, warnings, file } = await load(
      "settings.json",
      JSON.stringify({
        theme: "Default",
        mcpServers: {
          python: {
            command: "python",
            args: ["-m", "my_mcp_server"],
            cwd: "./mcp-servers/python",
            env: { DATABASE_URL: "$DB_CONNECTION_STRING", PORT: 8080 },
            includeTools: ["query_*", "list_tables"],
            excludeTools: ["query_admin"],
            description: "Our database",
            trust: true,
          },
          remote: { httpUrl: "https://g.example.com/mcp", timeout: 5000 },
        },
      }),
      { DB_CONNECTION_STRING: "postgres://db" },
    );
    const [python, remote] = nodes(config);
    expect(python).toMatchObject({
      summary: "Our database",
      source: {
        cwd: join(file, "..", "mcp-servers", "python"),
        env: { DATABASE_URL: "postgres://db", PORT: "8080" },
        tool_filter: ["query_*", "list_tables", "!query_admin"],
      },
    });
    expect(remote!.source).toMatchObject({ backend: "http", url: "https://g.example.com/mcp" });
    expect(warnings.join("\n")).toMatch(/"trust" ignored/);
  });

  it("reads VS Code's .vscode/mcp.json, comments and all; inputs are named unsupported and read from the environment", async () => {
    const { config, warnings, file } = await load(
      join(".vscode", "mcp.json"),
      `{
        // Inputs are prompted for in the editor.
        "inputs": [
          { "type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true },
        ],
        "servers": {
          "Perplexity": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "server-perplexity-ask", "\${workspaceFolder}/notes", "\${userHome}"],
            "env": { "PERPLEXITY_API_KEY": "\${input:perplexity-key}", "PATH": "\${env:PATH}" },
          },
          /* a remote one */
          "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/", "dev": { "watch": "x" } },
        },
      }`,
      { MCP_INPUT_PERPLEXITY_KEY: "pplx-1", PATH: "/usr/bin" },
    );
    const project = join(file, "..", "..");
    const [perplexity, github] = nodes(config);
    expect(perplexity!.source).toMatchObject({
      command: ["npx", "-y", "server-perplexity-ask", `${project}/notes`, homedir()],
      env: { PERPLEXITY_API_KEY: "pplx-1", PATH: "/usr/bin" },
    });
    expect(github!.source).toMatchObject({
      backend: "http",
      url: "https://api.githubcopilot.com/mcp/",
    });
    expect(warnings.join("\n")).toContain(
      'input "perplexity-key" (Perplexity API Key): inputs prompted for in the editor are not supported; set the environment variable MCP_INPUT_PERPLEXITY_KEY instead',
    );
    expect(warnings.join("\n")).toMatch(/server "github": "dev" ignored/);
  });

  it("says which variable an input needs when it is not set", async () => {
    const found = await problemsOf(
      "mcp.json",
      JSON.stringify({
        inputs: [{ type: "promptString", id: "token" }],
        servers: { s: { type: "stdio", command: "srv", env: { T: "${input:token}" } } },
      }),
    );
    expect(found).toContain(
      'server "s" (read as $.tree[0]).source.env.T: environment variable MCP_INPUT_TOKEN is not set',
    );
  });

  it("reads Codex CLI's config.toml: env_vars, bearer_token_env_var, enabled_tools, enabled = false", async () => {
    const { config, warnings } = await load(
      "config.toml",
      `model = "o4-mini"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-server", "--flag=\${NOT_A_VARIABLE}"]
env = { "LOG" = "debug" }
env_vars = ["HOME_TOKEN"]
startup_timeout_sec = 20
tool_timeout_sec = 60
enabled_tools = ["search"]

[mcp_servers.remote]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "REMOTE_TOKEN"
http_headers = { "X-Team" = "a" }
env_http_headers = { "X-Key" = "REMOTE_KEY" }

[mcp_servers.off]
command = "srv"
enabled = false
`,
      { HOME_TOKEN: "h", REMOTE_TOKEN: "r", REMOTE_KEY: "k" },
    );
    const [docs, remote] = nodes(config);
    expect(nodes(config)).toHaveLength(2);
    expect(docs!.source).toMatchObject({
      // Codex reads values as written: a ${…} in its file stays text.
      command: ["npx", "-y", "docs-server", "--flag=${NOT_A_VARIABLE}"],
      env: { HOME_TOKEN: "h", LOG: "debug" },
      start_timeout_s: 20,
      tool_filter: ["search"],
    });
    expect(remote!.source).toMatchObject({
      url: "https://mcp.example.com/mcp",
      headers: { "X-Team": "a", "X-Key": "k", Authorization: "Bearer r" },
    });
    expect(warnings.join("\n")).toMatch(/server "docs": "tool_timeout_sec" ignored/);
    expect(warnings.join("\n")).toMatch(/server "off": disabled/);
  });

  it("refuses broken files saying where, and entries of the wrong types saying which", async () => {
    expect(await problemsOf("c.json", '{"mcpServers": {"a": {"command": "x",}')).toMatch(
      /^not valid JSON/,
    );
    expect(await problemsOf("config.toml", "[mcp_servers.a\ncommand = 1")).toMatch(
      /^not valid TOML/,
    );
    expect(
      await problemsOf(
        "c.json",
        JSON.stringify({ mcpServers: { a: { command: "x", args: [{}] } } }),
      ),
    ).toMatch(/\$\.mcpServers\.a\.args\[0\]: /);
    expect(await problemsOf("c.json", JSON.stringify({ mcpServers: [] }))).toMatch(
      /\$\.mcpServers: expected an object of servers by name/,
    );
    expect(await problemsOf("c.json", JSON.stringify({ servers2: {} }))).toMatch(
      /neither a broker config/,
    );
    expect(
      await problemsOf("c.json", JSON.stringify({ mcpServers: { a: { args: ["x"] } } })),
    ).toMatch(/no server to serve[\s\S]*server "a": has neither a command nor a URL/);
    expect(
      await problemsOf("c.json", JSON.stringify({ mcpServers: { a: { url: "ftp://x" } } })),
    ).toMatch(/server "a" \(read as \$\.tree\[0\]\)\.source\.url/);
  });

  it("mounts names that are not path segments under names that are, each once", async () => {
    const { config, warnings } = await load(
      "c.json",
      JSON.stringify({
        mcpServers: {
          "../../etc": { command: "a" },
          "my server/v2": { command: "b" },
          "my server:v2": { command: "c" },
          "": { command: "d" },
        },
      }),
    );
    expect(nodes(config).map((n) => n.path)).toEqual([
      "/etc",
      "/my-server-v2",
      "/my-server-v2-2",
      "/server",
    ]);
    expect(warnings[0]).toMatch(/server "..\/..\/etc": mounted as \/etc/);
  });

  it("translates any list of servers into nodes of unique, valid names, or refuses it as a config error", () => {
    const entry = fc.record(
      {
        command: fc.string(),
        args: fc.array(fc.oneof(fc.string(), fc.integer(), fc.object())),
        url: fc.string(),
        env: fc.dictionary(fc.string(), fc.string()),
        type: fc.string(),
        disabled: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(entry, fc.anything())), (servers) => {
        try {
          const translated = translateClientConfig({ mcpServers: servers }, "/x/c.json")!;
          const paths = translated.config.tree.map((n) => n.path as string);
          expect(new Set(paths.map((p) => p.toLowerCase())).size).toBe(paths.length);
          for (const path of paths) expect(path).toMatch(/^\/[A-Za-z0-9_-]+$/);
          for (const node of translated.config.tree) {
            const source = node.source as { command?: unknown };
            if (source.command !== undefined) expect(Array.isArray(source.command)).toBe(true);
          }
        } catch (err) {
          expect(err).toBeInstanceOf(ConfigError);
        }
      }),
    );
  });
});

describe("relative paths in the broker's own config", () => {
  it("mean paths from the config file's folder, wherever the broker was started", async () => {
    const { config, file } = await load(
      "broker.json",
      JSON.stringify({
        tree: [
          { path: "/a", source: { backend: "stdio", command: "srv" } },
          { path: "/b", source: { backend: "stdio", command: "srv", cwd: "servers/b" } },
          { path: "/c", source: { backend: "stdio", command: "srv", cwd: "/srv/c" } },
          { path: "/cms", source: { backend: "emcp", database: "sqlite:data/cms.sqlite" } },
        ],
        toolsets: { documents: { roots: ["files", "/abs"] } },
      }),
    );
    const folder = join(file, "..");
    expect(nodes(config).map((n) => n.source.cwd ?? n.source.database)).toEqual([
      folder,
      join(folder, "servers/b"),
      "/srv/c",
      `sqlite:${join(folder, "data/cms.sqlite")}`,
    ]);
    expect((config.toolsets as { documents: { roots: string[] } }).documents.roots).toEqual([
      join(folder, "files"),
      "/abs",
    ]);
  });
});
