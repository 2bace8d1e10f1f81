import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingCommand, startBroker, writeConfig, type TestBroker } from "../helpers/broker.js";
import { cliArgv, collect, type CliResult } from "../helpers/cli.js";
import { textOf } from "../helpers/mcp-client.js";
import { npmBin, npmModule, npmPackages } from "../helpers/npm-tool.js";
import { configEntries, token } from "../helpers/tokens.js";

/**
 * The clients people connect with, installed from npm as they would install
 * them (pinned, once per machine), each against a running broker that asks
 * for a token: the coding agents' own commands that check their servers
 * without a model, the inspector's CLI, a stdio proxy, and the libraries
 * agents are built with.
 */
const CLIS = [
  "@anthropic-ai/claude-code@2.1.332",
  "@google/gemini-cli@0.61.0",
  "@modelcontextprotocol/inspector@2.12.0",
  "mcp-remote@0.15.1",
];
const LIBRARIES = ["@ai-sdk/mcp@2.0.99", "@langchain/mcp-adapters@1.1.4", "@openai/agents@0.20.0"];

// Installed while the file is collected (once per machine): a test without them says it skipped.
const clis = npmPackages(...CLIS);
const libraries = npmPackages(...LIBRARIES);
const caller = token("agent", ["*:/**"]);
let broker: TestBroker;
let config: string;

beforeAll(async () => {
  const tree = [
    { path: "/demo", source: { backend: "stdio", command: everythingCommand(), name: "demo" } },
  ];
  const auth = { tokens: configEntries(caller) };
  broker = await startBroker({ registry: { predefined: false }, auth, tree });
  config = writeConfig({ registry: { predefined: false }, tree });
}, 60_000);
afterAll(() => broker?.close());

/** Runs a program to its end, as a person in `cwd` with that home and environment. */
function run(argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const [command, ...args] = argv as [string, ...string[]];
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  return collect(child).finally(() => clearTimeout(timer)) as Promise<CliResult>;
}

/** A new home and project folder, and `mcp-broker connect` run there as the person would. */
async function connected(client: string, ...extra: string[]) {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "home-")));
  const project = join(home, "project");
  mkdirSync(project);
  const env = { HOME: home, MCP_BROKER_TOKEN: caller.bearer };
  const wrote = await run(
    cliArgv(
      "connect",
      client,
      "--url",
      `${broker.url}/mcp`,
      "--token-env",
      "MCP_BROKER_TOKEN",
      "--write",
      ...extra,
    ),
    { cwd: project, env },
  );
  expect(wrote.code, wrote.stderr).toBe(0);
  return { home, project, env };
}

describe.skipIf(clis === undefined)("coding agents' CLIs", () => {
  it("Claude Code: connected from the .mcp.json connect writes; without a token, told what the broker says", async () => {
    const { home, project, env } = await connected("claude-code");
    // The person's approval of the project's servers, as `claude` records it when asked.
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        projects: {
          [project]: { hasTrustDialogAccepted: true, enabledMcpjsonServers: ["mcp-broker"] },
        },
      }),
    );
    const listed = await run([npmBin(clis!, "claude"), "mcp", "list"], { cwd: project, env });
    expect(listed.stdout).toMatch(/mcp-broker: .*\/mcp \(HTTP\) - ✔ Connected/);

    const bare = await run(
      [npmBin(clis!, "claude"), "mcp", "add", "--transport", "http", "bare", `${broker.url}/mcp`],
      { cwd: project, env },
    );
    expect(bare.code).toBe(0);
    const failed = await run([npmBin(clis!, "claude"), "mcp", "list"], { cwd: project, env });
    // No OAuth here: the client's attempt to register is told so, in words it shows.
    expect(failed.stdout).toMatch(
      /bare: .* - ✘ Failed to connect .*the broker is not an authorization server/,
    );
  });

  it("Gemini CLI: connected from the settings.json connect writes, disconnected with a wrong token", async () => {
    const { home, project, env } = await connected("gemini-cli");
    writeFileSync(
      join(home, ".gemini", "trustedFolders.json"),
      JSON.stringify({ [project]: "TRUST_FOLDER" }),
    );
    const gemini = npmBin(clis!, "gemini");
    const listed = await run([gemini, "mcp", "list"], { cwd: project, env });
    // Gemini CLI writes its list to stderr when that is not a terminal.
    expect(listed.stdout + listed.stderr).toMatch(/✓ mcp-broker: .*\/mcp \(http\) - Connected/);
    const wrong = await run([gemini, "mcp", "list"], {
      cwd: project,
      env: { ...env, MCP_BROKER_TOKEN: "wrong" },
    });
    expect(wrong.stdout + wrong.stderr).toMatch(/✗ mcp-broker: .* - Disconnected/);
  });

  it("the MCP Inspector's CLI lists and calls over /mcp, /mcp/<name> and /sse", async () => {
    /** The inspector's CLI at an endpoint, with the token; its answer as JSON. */
    const inspect = async (path: string, ...method: string[]) => {
      const transport = path.startsWith("/sse") ? "sse" : "http";
      const header = `Authorization: Bearer ${caller.bearer}`;
      const ran = await run([
        npmBin(clis!, "mcp-inspector"),
        ...["--cli", `${broker.url}${path}`, "--transport", transport, "--header", header],
        ...["--method", ...method],
      ]);
      return JSON.parse(ran.stdout) as {
        tools: { name: string }[];
        content: { text: string }[];
      };
    };
    const names = async (path: string) =>
      (await inspect(path, "tools/list")).tools.map((t) => t.name);
    expect(await names("/mcp")).toContain("meta_search");
    const called = await inspect(
      "/mcp",
      ...["tools/call", "--tool-name", "meta_call", "--tool-arg", "path=/demo/get-sum"],
      'args={"a":2,"b":3}',
    );
    expect(called.content[0]!.text).toBe("The sum of 2 and 3 is 5.");
    expect(await names("/mcp/demo")).toContain("get-sum");
    expect(await names("/sse")).toContain("meta_call");
  });

  it("mcp-remote, the stdio proxy desktop clients use for remote servers, relays the broker", async () => {
    const transport = new StdioClientTransport({
      command: npmBin(clis!, "mcp-remote"),
      args: [
        `${broker.url}/mcp`,
        "--allow-http",
        "--header",
        `Authorization: Bearer ${caller.bearer}`,
      ],
      env: {
        ...process.env,
        MCP_REMOTE_CONFIG_DIR: mkdtempSync(join(tmpdir(), "mcp-remote-")),
      } as Record<string, string>,
      stderr: "pipe",
    });
    const client = new Client({ name: "desktop", version: "1" });
    await client.connect(transport);
    try {
      const sum = await client.callTool({
        name: "meta_call",
        arguments: { path: "/demo/get-sum", args: { a: 1, b: 1 } },
      });
      expect(textOf(sum)).toBe("The sum of 1 and 1 is 2.");
    } finally {
      await client.close();
    }
  });
});

describe.skipIf(libraries === undefined)("agent libraries", () => {
  it("the Vercel AI SDK, LangChain's adapters and OpenAI's Agents SDK list the meta tools and call through them", async () => {
    const script = join(mkdtempSync(join(tmpdir(), "libraries-")), "agents.mjs");
    const module = (name: string) =>
      JSON.stringify(pathToFileURL(npmModule(libraries!, name)).href);
    writeFileSync(
      script,
      `
import { createMCPClient } from ${module("@ai-sdk/mcp")};
import { MultiServerMCPClient } from ${module("@langchain/mcp-adapters")};
import { MCPServerStreamableHttp } from ${module("@openai/agents")};
const url = process.argv[2];
const headers = { Authorization: "Bearer " + process.argv[3] };
const args = { path: "/demo/get-sum", args: { a: 2, b: 3 } };
const out = {};
const ai = await createMCPClient({ transport: { type: "http", url, headers } });
const aiTools = await ai.tools();
out.aiSdk = { tools: Object.keys(aiTools), call: (await aiTools.meta_call.execute(args, { toolCallId: "1", messages: [] })).content[0].text };
await ai.close();
const lc = new MultiServerMCPClient({ mcpServers: { broker: { transport: "http", url, headers } } });
const lcTools = await lc.getTools();
out.langchain = { tools: lcTools.map((t) => t.name), call: await lcTools.find((t) => t.name.endsWith("meta_call")).invoke(args) };
await lc.close();
const oa = new MCPServerStreamableHttp({ url, name: "broker", requestInit: { headers } });
await oa.connect();
out.openai = { tools: (await oa.listTools()).map((t) => t.name), call: (await oa.callTool("meta_call", args))[0].text };
await oa.close();
console.log(JSON.stringify(out));
`,
    );
    const ran = await run([process.execPath, script, `${broker.url}/mcp`, caller.bearer]);
    expect(ran.code, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout.trim().split("\n").at(-1)!);
    for (const library of ["aiSdk", "langchain", "openai"]) {
      expect(out[library].tools.join(" "), library).toMatch(
        /meta_search.*meta_call|meta_call.*meta_search/,
      );
      expect(out[library].call, library).toBe("The sum of 2 and 3 is 5.");
    }
  });
});

describe("a desktop client that starts the broker itself", () => {
  /**
   * Runs `connect claude-desktop …args --write` from a home of its own, then
   * starts the entry it wrote as Claude Desktop does: from "/", by an SDK
   * stdio client given no env (the SDK's default set: PATH, HOME, USER,
   * SHELL, TERM, LOGNAME).
   */
  async function startedFromEntry(...args: string[]) {
    const home = realpathSync(mkdtempSync(join(tmpdir(), "home-")));
    const wrote = await run(cliArgv("connect", "claude-desktop", ...args, "--write"), {
      cwd: home,
      env: { HOME: home },
    });
    expect(wrote.code, wrote.stderr).toBe(0);
    const file = join(home, ".config", "Claude", "claude_desktop_config.json");
    const server = JSON.parse(readFileSync(file, "utf8")).mcpServers["mcp-broker"];
    const client = new Client({ name: "claude-desktop", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: server.command,
        args: server.args,
        cwd: "/",
        stderr: "pipe",
      }),
    );
    return { client, args: server.args as string[] };
  }

  it("starts it from what connect writes to claude_desktop_config.json, from its own folder", async () => {
    const { client } = await startedFromEntry(config);
    try {
      const sum = await client.callTool({
        name: "meta_call",
        arguments: { path: "/demo/get-sum", args: { a: 4, b: 5 } },
      });
      expect(textOf(sum)).toBe("The sum of 4 and 5 is 9.");
    } finally {
      await client.close();
    }
  });

  it("starts the demo from what connect --demo writes, with the few variables it gives a server", async () => {
    const { client, args } = await startedFromEntry("--demo");
    try {
      expect(args.slice(-2)).toEqual(["demo", "--stdio"]);
      const sum = await client.callTool({ name: "demo__add", arguments: { a: 4, b: 5 } });
      expect(textOf(sum)).toBe("The sum of 4 and 5 is 9.");
    } finally {
      await client.close();
    }
  });
});
