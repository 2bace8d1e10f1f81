import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { everythingCommand, fixtureCommand, isAlive, writeConfig } from "../helpers/broker.js";
import { cliArgv, collect, runCli } from "../helpers/cli.js";
import { META_TOOL_NAMES, textOf } from "../helpers/mcp-client.js";

const config = {
  // Only the tree written here: no predefined tools under /registry.
  registry: { predefined: false },
  tree: [
    {
      path: "/tools",
      summary: "Fixture tools",
      source: {
        backend: "stdio",
        command: fixtureCommand(),
        tool_filter: ["pid", "sleep"],
        path_aliases: { sleep: "wait" },
      },
    },
    {
      path: "/demo/everything",
      source: { backend: "stdio", command: everythingCommand(), tool_filter: ["echo"] },
    },
  ],
};

describe("the command line", () => {
  it("--help explains every option", async () => {
    const { code, stdout } = await runCli("serve", "--help");
    expect(code).toBe(0);
    for (const option of [
      "--reload",
      "--ignore-broken-tool",
      "--log-level",
      "--dump-tree",
      "[HOST:PORT]",
      "<config>",
      "[secret]",
    ]) {
      expect(stdout).toContain(option);
    }
    const top = await runCli("--help");
    for (const command of ["serve", "import", "stdio", "dump-tree", "check-config"])
      expect(top.stdout).toContain(command);
    expect(top.stdout).toContain("mcp-broker demo ");
  });

  it("run with no arguments, says what it does and how to start, and fails", async () => {
    const { code, stdout, stderr } = await runCli();
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^Usage: mcp-broker /);
    expect(stderr).toContain("mcp-broker demo ");
    expect(stderr).not.toContain("missing required argument");
  });

  it("--dump-tree prints the tree and exits", async () => {
    const { code, stdout } = await runCli(
      "127.0.0.1:0",
      writeConfig(config),
      "--dump-tree",
      "--log-level",
      "warn",
    );
    expect(code).toBe(0);
    expect(stdout).toBe(
      [
        "/",
        "  tools/  Fixture tools",
        "    wait  (tool tools__wait, backend tool sleep)  Waits ms milliseconds, then answers.",
        "    pid  (tool tools__pid)  Answers with the process id.",
        "  demo/",
        "    everything/",
        "      echo  (tool demo__everything__echo)  Echoes back the input string",
        "",
      ].join("\n"),
    );
  });

  it("--ignore-broken-tool leaves out a source that cannot start; without it, start-up stops naming it", async () => {
    const broken = writeConfig({
      tree: [
        ...config.tree,
        {
          path: "/broken",
          source: { backend: "stdio", command: fixtureCommand(), env: { FIXTURE_FAIL: "1" } },
        },
      ],
    });
    const refused = await runCli("127.0.0.1:0", broken, "--dump-tree", "--log-level", "warn");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/mcp-broker: sources failed to start:\s+\/broken: /);
    // What the backend printed is in the log, which the terminal shows.
    expect(refused.stderr).toMatch(/"source":"\/broken".*told to fail at start/);
    // The broker ends: nothing says the source will be tried again.
    expect(refused.stderr).not.toMatch(/retried/);
    const tolerated = await runCli(
      "127.0.0.1:0",
      broken,
      "--dump-tree",
      "--ignore-broken-tool",
      "--log-level",
      "warn",
    );
    expect(tolerated.code).toBe(0);
    expect(tolerated.stdout).toContain("  broken/\n");
    expect(tolerated.stdout).toContain("tools__wait");
    expect(tolerated.stderr).toContain("source left out until it starts");
  });

  it("check-config validates without starting anything, and names each problem", async () => {
    const ok = await runCli("check-config", writeConfig(config));
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/valid \(4 nodes, 2 sources\)/);

    const bad = await runCli(
      "check-config",
      writeConfig({
        tree: [{ path: "/a", source: { backend: "stdio", command: "x > y", tool_filter: [1] } }],
      }),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("$.tree[0].source.tool_filter[0]");

    const operators = await runCli(
      "check-config",
      writeConfig({ tree: [{ path: "/a", source: { backend: "stdio", command: "x > y" } }] }),
    );
    expect(operators.code).toBe(2);
    expect(operators.stderr).toMatch(/shell operator ">"/);

    const env = await runCli(
      "check-config",
      writeConfig({
        tree: [{ path: "/a", source: { backend: "stdio", command: "x ${MCP_BROKER_TEST_UNSET}" } }],
      }),
    );
    expect(env.code).toBe(2);
    expect(env.stderr).toContain(
      "$.tree[0].source.command: environment variable MCP_BROKER_TEST_UNSET is not set",
    );
  });

  it("refuses a bad listen address with a clear message", async () => {
    const { code, stderr } = await runCli("localhost", writeConfig(config));
    expect(code).toBe(1);
    expect(stderr).toMatch(/"localhost" is not a listen address; write HOST:PORT/);
  });

  it("serves HTTP, and on SIGTERM closes every backend: no orphans", async () => {
    const [cmd, ...args] = cliArgv("127.0.0.1:0", writeConfig(config), "SECRET-1") as [
      string,
      ...string[],
    ];
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    const done = collect(child);
    let log = "";
    child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    await expect.poll(() => /"msg":"listening"/.test(log), { timeout: 15_000 }).toBe(true);
    const port = JSON.parse(log.split("\n").find((l) => l.includes('"listening"'))!).port;
    const post = (body: unknown, auth = "Bearer SECRET-1") =>
      fetch(`http://127.0.0.1:${port}/meta_call`, {
        method: "POST",
        headers: { authorization: auth },
        body: JSON.stringify(body),
      });
    expect((await post({ path: "/tools/pid" }, "Bearer wrong")).status).toBe(401);
    const pid = Number(
      ((await (await post({ path: "/tools/pid" })).json()) as any).output.content[0].text,
    );
    expect(isAlive(pid)).toBe(true);

    child.kill("SIGTERM");
    const { code } = await done;
    expect(code).toBe(0);
    await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false);
  });

  it("a signal while a source is still starting ends the start and its program: no orphans", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "mcp-broker-test-")), "pid");
    const slow = {
      tree: [
        {
          path: "/slow",
          source: {
            backend: "stdio",
            command: fixtureCommand(),
            env: { FIXTURE_DELAY_MS: "60000", FIXTURE_PID_FILE: pidFile },
          },
        },
      ],
    };
    const [cmd, ...args] = cliArgv("127.0.0.1:0", writeConfig(slow)) as [string, ...string[]];
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    const done = collect(child);
    await expect.poll(() => existsSync(pidFile), { timeout: 15_000 }).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(pid)).toBe(true);
    child.kill("SIGINT");
    const { code, stderr } = await done;
    expect(code).toBe(1);
    expect(stderr).toContain("mcp-broker: start-up interrupted by SIGINT");
    expect(stderr).not.toContain('"msg":"source failed to start"');
    await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false);
  });

  it("on a terminal, says where to open the console and logs for people; else JSON lines", async () => {
    // `script` (util-linux) runs the CLI on a pseudo-terminal, as a person's shell would.
    const argv = cliArgv("127.0.0.1:0", writeConfig(config))
      .map((a) => `'${a}'`)
      .join(" ");
    const child = spawn("script", ["-qfec", argv, "/dev/null"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MCP_BROKER_LOG_FORMAT: "" },
    });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    const plain = () => stripVTControlCharacters(out);
    await expect
      .poll(() => /console\s+http:\/\/127\.0\.0\.1:\d+\//.test(plain()), { timeout: 15_000 })
      .toBe(true);
    const port = /console\s+http:\/\/127\.0\.0\.1:(\d+)\//.exec(plain())![1];
    expect(plain()).toContain(`MCP       http://127.0.0.1:${port}/mcp`);
    expect(plain()).toContain(`health    http://127.0.0.1:${port}/healthz`);
    expect(plain()).toMatch(/\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening/);
    expect(plain()).not.toContain('"level":30');
    // The page it names is the console.
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toContain("mcp-broker console");
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("close", resolve));

    // Not on a terminal: JSON lines, the address in the "listening" line, no banner.
    const [cmd, ...args] = cliArgv("127.0.0.1:0", writeConfig(config)) as [string, ...string[]];
    const piped = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    piped.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    await expect.poll(() => /"msg":"listening"/.test(log), { timeout: 15_000 }).toBe(true);
    const listening = JSON.parse(log.split("\n").find((l) => l.includes('"listening"'))!);
    expect(listening.console).toBe(`http://127.0.0.1:${listening.port}/`);
    expect(log).not.toContain("mcp-broker is listening");
    piped.kill("SIGTERM");
    await new Promise((resolve) => piped.once("close", resolve));
  });

  it("serves MCP over stdio for desktop clients, and exits with its client", async () => {
    const [command, ...args] = cliArgv(
      "stdio",
      writeConfig({ ...config, expose: "both" }),
      "--log-level",
      "warn",
    ) as [string, ...string[]];
    const transport = new StdioClientTransport({ command, args, stderr: "pipe" });
    const client = new Client({ name: "desktop", version: "1" });
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([
      ...META_TOOL_NAMES,
      "tools__wait",
      "tools__pid",
      "demo__everything__echo",
    ]);
    const echo = await client.callTool({
      name: "meta_call",
      arguments: { path: "/demo/everything/echo", args: { message: "stdio" } },
    });
    expect(textOf(echo)).toBe("Echo: stdio");
    const pid = Number(textOf(await client.callTool({ name: "tools__pid", arguments: {} })));
    await client.close();
    await expect.poll(() => isAlive(pid), { timeout: 5000 }).toBe(false);
  });
});

describe("malformed input over stdio", () => {
  // The SDK's stdio transport drops lines that are not JSON-RPC (logged on stderr) rather than
  // answering them; what matters here is that nothing crashes and later requests are served.
  it("survives garbage lines and malformed requests, and keeps serving", async () => {
    const [cmd, ...args] = cliArgv("stdio", writeConfig(config), "--log-level", "silent") as [
      string,
      ...string[],
    ];
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] });
    const done = collect(child);
    const lines: any[] = [];
    let buffer = "";
    child.stdout!.on("data", (d: Buffer) => {
      buffer += d.toString();
      let i: number;
      while ((i = buffer.indexOf("\n")) >= 0) {
        lines.push(JSON.parse(buffer.slice(0, i)));
        buffer = buffer.slice(i + 1);
      }
    });
    const send = (text: string) => child.stdin!.write(text + "\n");
    send("this is not json");
    send('{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": 7}');
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    );
    await expect.poll(() => lines.find((l) => l.id === 2), { timeout: 15_000 }).toBeTruthy();
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "meta_call", arguments: { path: "/tools/pid", args: [] } },
      }),
    );
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 4,
        method: "tools/call",
        params: { name: "meta_tree", arguments: { path: "/" } },
      }),
    );
    await expect.poll(() => lines.find((l) => l.id === 4), { timeout: 10_000 }).toBeTruthy();
    expect(lines.find((l) => l.id === 1)?.result).toBeUndefined();
    expect(lines.find((l) => l.id === 3).result).toMatchObject({ isError: true });
    expect(lines.find((l) => l.id === 3).result.content[0].text).toContain(
      "$.args: expected an object of named arguments",
    );
    expect(JSON.parse(lines.find((l) => l.id === 4).result.content[0].text).children).toHaveLength(
      2,
    );
    const answered = lines.findIndex((l) => l.id === 2);
    expect(lines.slice(0, answered).filter((l) => l.method !== undefined)).toEqual([]);
    child.stdin!.end();
    const ended = await done;
    expect(ended.code).toBe(0);
    expect(ended.stderr).not.toMatch(/RangeError|Exception/);
  });
});

describe("token create", () => {
  it("prints a token and the config entry with its SHA-256, and refuses bad scopes", async () => {
    const { code, stdout } = await runCli(
      "token",
      "create",
      "--id",
      "ci",
      "--scopes",
      "call:/cms/**",
      "tree:/**",
    );
    expect(code).toBe(0);
    const token = /^token:\s+(\S+)$/m.exec(stdout)![1]!;
    const entry = JSON.parse(/^config: (.+)$/m.exec(stdout)![1]!);
    expect(entry).toEqual({
      id: "ci",
      sha256: createHash("sha256").update(token).digest("hex"),
      scopes: ["call:/cms/**", "tree:/**"],
    });
    const bad = await runCli("token", "create", "--scopes", "cal:/x");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/a scope is ACTION:PATH-GLOB/);
  });
});
