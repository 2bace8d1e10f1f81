import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import type { WasmSourceConfig } from "../../src/sources/wasm/config.js";
import { loadComponent } from "../../src/sources/wasm/component-cache.js";
import { sandboxFor, unsuppliedImports } from "../../src/sources/wasm/sandbox.js";
import { WasmSource } from "../../src/sources/wasm/wasm-source.js";
import { startBroker, writeConfig, type TestBroker } from "../helpers/broker.js";
import { cliArgv, collect, runCli } from "../helpers/cli.js";
import { connectHttp } from "../helpers/mcp-client.js";
import { testComponent } from "../helpers/wasm-components.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-broker-wasm-load-"));
const silent = pino({ level: "silent" });
const CLOSE_AFTER_TRAP = fileURLToPath(
  new URL("../fixtures/wasm/close-after-trap.ts", import.meta.url),
);
const EXAMPLE = fileURLToPath(new URL("../../examples/wasm/router.js", import.meta.url));

function source(config: Partial<WasmSourceConfig>): WasmSource {
  return new WasmSource(
    "w",
    { backend: "wasm", component: "", cache_dir: join(dir, "cache"), ...config },
    silent,
  );
}

describe("wasm source config", () => {
  it.each([
    [{}, /component/],
    [{ component: "" }, /component/],
    [
      { component: "x.wasm", permissions: { dirs: { data: "/tmp" } } },
      /guest path "data" is not absolute; write it as "\/data"/,
    ],
    [{ component: "x.wasm", permissions: { env: ["NOT-A-NAME"] } }, /environment variable/],
    [{ component: "x.wasm", permissions: { network: "yes" } }, /network/],
    [{ component: "x.wasm", permissions: { files: true } }, /files/],
    [{ component: "x.wasm", max_memory_mb: 8 }, /max_memory_mb/],
    [{ component: "x.wasm", max_memory_mb: 5000 }, /max_memory_mb/],
    [{ component: "x.wasm", timeout_ms: 0 }, /timeout_ms/],
    [{ component: "x.wasm", wasi: true }, /wasi/],
  ])("refuses %j, saying what is wrong", (fields, message) => {
    const text = JSON.stringify({ tree: [{ path: "/w", source: { backend: "wasm", ...fields } }] });
    expect(() => parseConfig(text, "c.json", ConfigSchema, {})).toThrow(message);
  });

  it("grants nothing by default: no folder, no variable, no network", () => {
    process.env.WASM_LOAD_TEST = "set";
    try {
      expect(sandboxFor(undefined)).toEqual({ preopens: {}, env: {}, enableNetwork: false });
      expect(sandboxFor({ env: ["WASM_LOAD_TEST", "WASM_LOAD_UNSET"] })).toMatchObject({
        env: { WASM_LOAD_TEST: "set" },
      });
    } finally {
      delete process.env.WASM_LOAD_TEST;
    }
  });

  it("refuses a granted folder that is not one", () => {
    expect(sandboxFor({ dirs: { "/data": join(dir, "missing") } })).toMatch(
      /permissions.dirs\["\/data"\]: .*missing is not a folder/,
    );
  });

  it("names the imports no host here supplies", async () => {
    expect(
      await unsuppliedImports([
        "wasi:io/streams@0.2.12",
        "wasi:filesystem/types@0.2.3",
        "wasi:http/outgoing-handler",
        "acme:db/query@1.0.0",
        "wasi:nn/inference@0.2.0",
      ]),
    ).toEqual(["acme:db/query@1.0.0", "wasi:nn/inference@0.2.0"]);
  });
});

describe("loading a component", () => {
  it("says so when the file is missing, not a component, or only a core module", async () => {
    await expect(source({ component: join(dir, "none.wasm") }).start()).rejects.toThrow(
      /component file .*none.wasm not found/,
    );
    const text = join(dir, "text.wasm");
    writeFileSync(text, "this is not WebAssembly");
    await expect(source({ component: text }).start()).rejects.toThrow(
      /text.wasm is not a WebAssembly component jco can load/,
    );
    // The smallest valid core module: magic and version, nothing else.
    const core = join(dir, "core.wasm");
    writeFileSync(core, Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
    await expect(source({ component: core }).start()).rejects.toThrow(
      /core.wasm is not a WebAssembly component jco can load/,
    );
  });

  it("refuses a granted folder that does not exist, before loading anything", async () => {
    const wasm = await testComponent("everything");
    const started = source({ component: wasm, permissions: { dirs: { "/d": join(dir, "no") } } });
    await expect(started.start()).rejects.toThrow(/\/no.* is not a folder/);
  });

  it("transpiles once, then takes the cache, keyed by the component's bytes", async () => {
    const wasm = await testComponent("everything");
    const cache = join(dir, "transpiled");
    const first = await loadComponent(wasm, cache);
    expect(first.cached).toBe(false);
    expect(first.exports).toContain("wasix:mcp/router@25.3.26");
    expect(first.imports).toContain("wasi:filesystem/preopens");
    const again = await loadComponent(wasm, cache);
    expect(again.cached).toBe(true);
    expect(again.hash).toBe(first.hash);
    expect(readdirSync(cache)).toEqual([expect.stringMatching(new RegExp(`^${first.hash}-jco`))]);
    // A copy under another name is the same component: still one entry.
    const copy = join(dir, "copy.wasm");
    copyFileSync(wasm, copy);
    expect((await loadComponent(copy, cache)).cached).toBe(true);
    expect(readdirSync(cache)).toHaveLength(1);
  });
});

describe("closing a source", () => {
  it("ends an instance that was still starting, so the process can exit", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", CLOSE_AFTER_TRAP, await testComponent("faulty"), join(dir, "cache")],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const result = await collect(child);
    clearTimeout(killer);
    expect(result.stdout).toMatch(/trapped in callTool/);
    expect(result.code).toBe(0);
  }, 30_000);
});

describe("--reload", () => {
  it("picks up a rebuilt component at the same path", async () => {
    const path = join(dir, "reloaded.wasm");
    copyFileSync(await testComponent("everything"), path);
    const config = {
      tree: [{ path: "/w", source: { backend: "wasm", component: path, cache_dir: dir } }],
    };
    const broker = await startBroker(config, { reload: true });
    try {
      const tools = async () =>
        JSON.stringify((await broker.post("/meta_tree", { path: "/w" })).body);
      expect(await tools()).toContain('"echo"');
      copyFileSync(await testComponent("faulty"), path);
      writeFileSync(broker.configFile, JSON.stringify(config));
      await expect.poll(tools, { timeout: 20_000 }).toContain('"count"');
      expect(await tools()).not.toContain('"echo"');
      const counted = await broker.post("/meta_call", { path: "/w/count", args: {} });
      expect(counted.body.output.content[0].text).toBe("1");
    } finally {
      await broker.close();
    }
  }, 60_000);
});

describe("a component over the stdio frontend", () => {
  it("keeps the guest's stdout off the MCP channel: it goes to the log", async () => {
    const config = writeConfig({
      expose: "flat",
      tree: [
        {
          path: "/faulty",
          source: { backend: "wasm", component: await testComponent("faulty"), cache_dir: dir },
        },
      ],
    });
    const [command, ...args] = cliArgv("stdio", config, "--log-level", "info") as [
      string,
      ...string[],
    ];
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    let answered = "";
    child.stdout!.on("data", (d: Buffer) => (answered += d.toString()));
    const done = collect(child);
    const send = (message: object) => child.stdin!.write(JSON.stringify(message) + "\n");
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "faulty__chatty", arguments: {} },
    });
    await expect.poll(() => answered.includes('"id":2'), { timeout: 20_000 }).toBe(true);
    let log = "";
    child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    // The guest's flood is logged at most 50 lines a second, the rest counted once its second is over.
    await expect.poll(() => log.includes('"left_out"'), { timeout: 10_000 }).toBe(true);
    child.stdin!.end();
    const result = await done;
    for (const line of answered.split("\n").filter(Boolean))
      expect(() => JSON.parse(line), line).not.toThrow();
    expect(answered).toContain("said it");
    expect(answered).not.toContain("a line on the guest");
    expect(result.stderr).toContain("a line on the guest's stdout");
    expect(result.stderr).toContain("a line on the guest's stderr");
    const stdout = result.stderr.split("\n").filter((l) => l.includes('"stream":"stdout"'));
    const logged = stdout.filter((l) => l.includes('"msg":"component output"')).length;
    const leftOut = stdout
      .filter((l) => l.includes('"left_out"'))
      .reduce((sum, l) => sum + (JSON.parse(l) as { left_out: number }).left_out, 0);
    expect(logged).toBeLessThanOrEqual(100);
    expect(logged + leftOut).toBe(10_001);
  }, 60_000);
});

describe("mcp-broker wasm build", () => {
  let broker: TestBroker | undefined;
  afterAll(async () => broker?.close());

  it("builds the example router into a component the broker serves: tools, resources, prompts", async () => {
    const out = join(dir, "built", "text-tools.wasm");
    const built = await runCli("wasm", "build", EXAMPLE, "--out", out);
    expect(built.stderr).toBe("");
    expect(built.code).toBe(0);
    expect(built.stdout).toMatch(/text-tools.wasm: \d+\.\d MiB component built in/);
    expect(existsSync(out)).toBe(true);

    broker = await startBroker({
      tree: [{ path: "/text", source: { backend: "wasm", component: out, cache_dir: dir } }],
    });
    const call = (tool: string, args: unknown) =>
      broker!.post("/meta_call", { path: `/text/${tool}`, args });
    const count = await call("word_count", { text: "one two\nthree" });
    expect(JSON.parse(count.body.output.content[0].text)).toEqual({
      words: 3,
      lines: 2,
      characters: 13,
    });
    const slug = await call("slugify", { text: "Hello, WebAssembly World: 2 Ways!" });
    expect(slug.body.output.content[0].text).toBe("hello-webassembly-world-2-ways");
    const wrong = await call("slugify", { text: 5 });
    expect(wrong.status).toBe(400);

    const client = await connectHttp(broker.url, {}, { path: "/mcp/text" });
    try {
      expect(client.getServerVersion()?.name).toBe("text-tools");
      const notes = await client.readResource({ uri: "text-tools://notes" });
      expect(JSON.stringify(notes.contents)).toContain("WebAssembly sandbox");
      const prompt = await client.getPrompt({ name: "tidy" });
      expect(JSON.stringify(prompt.messages)).toContain("Tidy the following text");
    } finally {
      await client.close();
    }
  }, 120_000);

  it("says what is wrong with its input", async () => {
    const missing = await runCli(
      "wasm",
      "build",
      join(dir, "nope.js"),
      "--out",
      join(dir, "x.wasm"),
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope.js not found/);

    const noOut = await runCli("wasm", "build", EXAMPLE);
    expect(noOut.code).not.toBe(0);
    expect(noOut.stderr).toMatch(/--out/);

    const broken = join(dir, "broken.js");
    writeFileSync(broken, "export const router = {\n  name() { return 'x' \n");
    const syntax = await runCli("wasm", "build", broken, "--out", join(dir, "broken.wasm"));
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toMatch(/broken.js is not valid JavaScript:\n.*broken.js:3/);
    expect(syntax.stderr).toMatch(/SyntaxError: Unexpected end of input/);
    expect(existsSync(join(dir, "broken.wasm"))).toBe(false);

    const noRouter = join(dir, "no-router.js");
    writeFileSync(noRouter, "export const something = 1;\n");
    const wrongShape = await runCli("wasm", "build", noRouter, "--out", join(dir, "nr.wasm"));
    expect(wrongShape.code).toBe(1);
    expect(wrongShape.stderr).toMatch(/router/);
  }, 120_000);
});

mkdirSync(join(dir, "cache"), { recursive: true });
