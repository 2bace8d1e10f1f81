import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noNetworkPrefix } from "../../src/sources/command/no-network.js";
import { parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import { startBroker, type TestBroker } from "../helpers/broker.js";

const TOOL = fileURLToPath(new URL("../fixtures/command-tool.mjs", import.meta.url));
const run = (mode: string, extra: Record<string, unknown> = {}) => ({
  name: mode.replace(/-/g, "_"),
  argv: [process.execPath, TOOL, mode],
  ...extra,
});
const pidFile = join(mkdtempSync(join(tmpdir(), "mcp-broker-command-")), "grandchild.pid");

/** Whether a process runs: killed ones may stay zombies until someone reaps them. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

let broker: TestBroker;
beforeAll(async () => {
  process.env.COMMAND_TEST_SECRET = "must-not-leak";
  process.env.COMMAND_TEST_ALLOWED = "passed-through";
  broker = await startBroker({
    tree: [
      {
        path: "/cli",
        source: {
          backend: "command",
          env: ["COMMAND_TEST_ALLOWED"],
          tools: [
            run("argv", {
              description: "Echoes its argv and environment.",
              input_schema: {
                properties: {
                  query: { type: "string" },
                  tags: { type: "array", items: { type: "string" } },
                  verbose: { type: "boolean" },
                  count: { type: "integer", minimum: 1 },
                },
              },
              arguments: {
                query: ["--query", "{value}"],
                tags: ["--tag", "{value}"],
                verbose: ["-v"],
                count: ["-n{value}", "{value}"],
              },
            }),
            run("argv", {
              name: "positional",
              input_schema: {
                properties: {
                  word: { type: "string" },
                  after: { type: "string" },
                  number: { type: "integer" },
                },
              },
              arguments: { word: ["{value}"], number: ["{value}"], after: ["--", "{value}"] },
            }),
            run("fail"),
            run("fail-stdout"),
            run("garbage"),
            run("garbage", { name: "plain_text", output: "text" }),
            run("array"),
            run("big", { argv: [process.execPath, TOOL, "big", "5000"], max_bytes: 1000 }),
            run("hang", { argv: [process.execPath, TOOL, "hang", pidFile], timeout_ms: 1500 }),
            run("signal"),
            { name: "missing", argv: ["/nonexistent/program"] },
          ],
        },
      },
    ],
  });
}, 30_000);
afterAll(async () => {
  await broker?.close();
  delete process.env.COMMAND_TEST_SECRET;
  delete process.env.COMMAND_TEST_ALLOWED;
});

const call = (tool: string, args: unknown = {}) =>
  broker.post("/meta_call", { path: `/cli/${tool}`, args });
const errorOf = async (tool: string) => {
  const res = await call(tool);
  expect(res.status).toBe(200);
  expect(res.body.is_error).toBe(true);
  return res.body.output.structuredContent.error;
};

describe("the command source", () => {
  it("lists exactly the configured commands, with their schemas", async () => {
    const res = await broker.post("/meta_desc", { path: "/cli/argv" });
    expect(res.body.args_schema).toMatchObject({
      type: "object",
      properties: {
        query: { type: "string" },
        tags: { type: "array", items: { type: "string" } },
        verbose: { type: "boolean" },
        count: { type: "integer", minimum: 1 },
      },
    });
    expect((await broker.post("/meta_desc", { path: "/cli/fail" })).body.args_schema).toEqual({
      type: "object",
      additionalProperties: false,
    });
    const tree = await broker.post("/meta_tree", { path: "/cli" });
    // Exactly these: no shell, nor anything else, beside them. (Not a search of the JSON
    // for "sh": the summaries hold the checkout's path, which may contain it.)
    expect(tree.body.children.map((c: any) => c.name)).toEqual([
      "argv",
      "positional",
      "fail",
      "fail_stdout",
      "garbage",
      "plain_text",
      "array",
      "big",
      "hang",
      "signal",
      "missing",
    ]);
  });

  it("turns every argument into whole argv elements, metacharacters and all, and nothing else", async () => {
    const query = "a; rm -rf / $(touch x) `id` | cat > y && echo 'z' \"q\" \\n *";
    const res = await call("argv", { query, tags: ["x y", "--z"], verbose: true, count: 3 });
    expect(res.status).toBe(200);
    expect(res.body.output.structuredContent.argv).toEqual([
      "--query",
      query,
      "--tag",
      "x y",
      "--tag",
      "--z",
      "-v",
      "-n{value}",
      "3",
    ]);
    const none = await call("argv", { verbose: false });
    expect(none.body.output.structuredContent.argv).toEqual([]);
  });

  it("refuses a text value that the command would read as an option, where it would", async () => {
    const refused = await call("positional", { word: "--output=/tmp/x" });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(
      'argument \'word\' must not begin with "-": the command would take "--output=/tmp/x" as an option, not as a value',
    );
    const argvOf = async (args: unknown) =>
      (await call("positional", args)).body.output.structuredContent.argv;
    expect(await argvOf({ word: "hello-world" })).toEqual(["hello-world"]);
    // After "--" it is a value; a number is only ever digits.
    expect(await argvOf({ word: "x", after: "--help" })).toEqual(["x", "--", "--help"]);
    expect(await argvOf({ number: -5 })).toEqual(["-5"]);
  });

  it("passes stdout through byte for byte, and only the allowed environment", async () => {
    const res = await call("argv");
    const text: string = res.body.output.content[0].text;
    expect(text.startsWith('{ "ok":true,   "argv": [] ,"env": ')).toBe(true);
    expect(text.endsWith(" }\n")).toBe(true);
    expect(res.body.output.structuredContent.env).toEqual({
      COMMAND_TEST_ALLOWED: "passed-through",
    });
  });

  it("answers a failure with its kind, exit code and the command's own JSON error", async () => {
    expect(await errorOf("fail")).toMatchObject({
      kind: "exit",
      exit_code: 2,
      signal: null,
      command_output: { ok: false, error: { message: "no such proposal" } },
    });
    expect(await errorOf("fail_stdout")).toMatchObject({
      kind: "exit",
      exit_code: 1,
      command_output: { ok: false, step: "test", status: "failed" },
    });
    expect(await errorOf("signal")).toMatchObject({ kind: "exit", signal: "SIGTERM" });
    expect(await errorOf("garbage")).toMatchObject({ kind: "invalid_json", exit_code: 0 });
    expect(await errorOf("missing")).toMatchObject({ kind: "spawn_failed" });
    const big = await errorOf("big");
    expect(big).toMatchObject({ kind: "too_large" });
    expect(big.message).toContain("1000 bytes");
  });

  it("serves what a tool whose output is text prints as its text, whatever it is", async () => {
    const res = await call("plain_text");
    expect(res.body.is_error).toBe(false);
    expect(res.body.output).toEqual({ content: [{ type: "text", text: "this is not JSON {" }] });
    expect((await errorOf("garbage")).message).toBe(
      'the command\'s output is not JSON (a tool whose command prints text has "output": "text" in the config)',
    );
  });

  it("keeps JSON that is not an object as text only", async () => {
    const res = await call("array");
    expect(res.body.is_error).toBe(false);
    expect(res.body.output.content[0].text).toBe("[1, 2, 3]");
    expect(res.body.output.structuredContent).toBeUndefined();
  });

  it("kills the whole process group on timeout, leaving nothing behind", async () => {
    const started = Date.now();
    expect(await errorOf("hang")).toMatchObject({ kind: "timeout", signal: "SIGKILL" });
    expect(Date.now() - started).toBeLessThan(5000);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    await expect.poll(() => running(grandchild)).toBe(false);
  });

  it("answers when the command exits, ending what it left running", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mcp-broker-command-")), "background.pid");
    const other = await startBroker({
      tree: [
        {
          path: "/c",
          source: {
            backend: "command",
            tools: [{ name: "bg", argv: [process.execPath, TOOL, "background", file] }],
          },
        },
      ],
    });
    try {
      const started = Date.now();
      const res = await other.post("/meta_call", { path: "/c/bg", args: {} });
      expect(res.body.output.structuredContent).toEqual({ ok: true });
      expect(Date.now() - started).toBeLessThan(5000);
      const left = Number(readFileSync(file, "utf8"));
      await expect.poll(() => running(left), { timeout: 2000 }).toBe(false);
    } finally {
      await other.close();
    }
  });

  it("stops a running command when its source is removed by a reload", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "mcp-broker-command-")), "grandchild.pid");
    const hang = {
      path: "/c",
      source: {
        backend: "command",
        tools: [{ name: "hang", argv: [process.execPath, TOOL, "hang", file] }],
      },
    };
    const other = await startBroker({ tree: [hang] }, { reload: true });
    try {
      const pending = other.post("/meta_call", { path: "/c/hang", args: {} });
      await expect.poll(() => existsSync(file), { timeout: 5000 }).toBe(true);
      const grandchild = Number(readFileSync(file, "utf8"));
      expect(running(grandchild)).toBe(true);
      writeFileSync(
        other.configFile,
        JSON.stringify({
          tree: [{ ...hang, path: "/d", source: { ...hang.source, tools: [run("array")] } }],
        }),
      );
      await expect.poll(() => running(grandchild), { timeout: 10_000 }).toBe(false);
      expect((await pending).body.output.structuredContent.error.kind).toBe("timeout");
    } finally {
      await other.close();
    }
  });

  it.each([
    [{ extra: 1 }, /extra/],
    [{ query: 5 }, /query/],
    [{ count: 0 }, /count/],
    [{ tags: "x" }, /tags/],
  ])("refuses arguments %j, saying what is wrong", async (args, message) => {
    const res = await call("argv", args);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
  });

  it.each([
    [{ name: "t", argv: [] }, /argv/],
    [{ name: "t", argv: ["x"], arguments: { q: ["{value}"] } }, /argument 'q' is not a property/],
    [
      { name: "t", argv: ["x"], input_schema: { properties: { q: { type: "string" } } } },
      /property 'q' has no argv mapping/,
    ],
    [{ name: "a b", argv: ["x"] }, /name/],
    [{ name: "t", argv: ["x"], env: ["NOT-A-NAME"] }, /environment variable/],
  ])("refuses the tool config %j", (tool, message) => {
    const text = JSON.stringify({
      tree: [{ path: "/c", source: { backend: "command", tools: [tool] } }],
    });
    expect(() => parseConfig(text, "c.json", ConfigSchema, {})).toThrow(message);
  });
});

describe("network: false", () => {
  const isolation = noNetworkPrefix();
  it.runIf("prefix" in isolation || process.env.CI === "true")(
    "runs the command without network access, where the same command has it otherwise",
    async () => {
      const server = createServer((_req, res) => res.end("ok"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = String((server.address() as AddressInfo).port);
      const tool = { name: "reach", argv: [process.execPath, TOOL, "network", port] };
      const both = await startBroker({
        tree: [
          { path: "/with", source: { backend: "command", tools: [tool] } },
          { path: "/without", source: { backend: "command", network: false, tools: [tool] } },
        ],
      });
      try {
        const reach = async (path: string) =>
          (await both.post("/meta_call", { path: `${path}/reach`, args: {} })).body.output
            .structuredContent;
        expect(await reach("/with")).toEqual({ reached: true });
        expect(await reach("/without")).toMatchObject({ reached: false });
      } finally {
        await both.close();
        server.close();
      }
    },
  );
  it("says why it cannot where unshare is missing", () => {
    const saved = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      expect(noNetworkPrefix()).toEqual({ problem: "unshare (util-linux) is not on PATH" });
    } finally {
      process.env.PATH = saved;
    }
  });
  if (!("prefix" in isolation) && process.env.CI !== "true")
    it.skip(`skipped: this machine cannot run commands without network (${isolation.problem})`);
});
