import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemo } from "../../src/toolsets/emcp/demo/generate.js";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import type { RunAnswer } from "../../src/broker/meta-api/answers.js";
import type { AuditRecord } from "../../src/policy/audit/index.js";
import {
  everythingCommand,
  fixtureCommand,
  startBroker,
  type TestBroker,
} from "../helpers/broker.js";
import { connectHttp, connectModern, textOf, META_TOOL_NAMES } from "../helpers/mcp-client.js";
import { bearer, configEntries, token } from "../helpers/tokens.js";

/**
 * `meta_run`: a script that calls many tools in one step, over REST, MCP
 * (SDK clients of both generations) and `/rpc`, against real stdio servers,
 * with each inner call the caller's own.
 */
const admin = token("admin", ["*:/**"]);
const noRun = token("no-run", ["tree:/**", "describe:/**", "call:/**"]);
const demoOnly = token("demo-only", ["run:/", "tree:/**", "describe:/**", "call:/demo/**"]);
const limited = token("limited", ["*:/**"]);

let broker: TestBroker;
let client: Client;
const audit: AuditRecord[] = [];

beforeAll(async () => {
  const database = join(mkdtempSync(join(tmpdir(), "meta-run-")), "evo.sqlite");
  const opened = openDatabase(`sqlite:${database}`);
  await generateDemo(opened, "evo_", 50);
  await opened.db.destroy();
  broker = await startBroker({
    expose: "meta",
    auth: { tokens: configEntries(admin, noRun, demoOnly, limited) },
    rate_limits: [{ token: "limited", path: "/fx/**", per_minute: 1, burst: 2 }],
    redact: ["api_key"],
    registry: { predefined: false },
    tree: [
      {
        path: "/demo",
        source: {
          backend: "stdio",
          command: everythingCommand(),
          tool_filter: ["echo", "get-sum"],
        },
      },
      {
        path: "/fx",
        source: {
          backend: "stdio",
          command: fixtureCommand(),
          tool_filter: ["count", "fail", "secrets", "sleep", "sleeping"],
        },
      },
      { path: "/cms", source: { backend: "emcp", database: `sqlite:${database}` } },
      {
        path: "/cmd",
        source: {
          backend: "command",
          tools: [
            {
              name: "node_version",
              argv: [
                process.execPath,
                "-e",
                "console.log(JSON.stringify({ version: process.version }))",
              ],
            },
          ],
        },
      },
    ],
  });
  broker.broker.onAudit((record) => audit.push(record));
  client = await connectHttp(broker.url, bearer(admin));
});
afterAll(async () => {
  await client?.close();
  await broker?.close();
});

const run = async (code: string, who = admin, extra: Record<string, unknown> = {}) => {
  const res = await broker.post("/meta_run", { code, ...extra }, bearer(who));
  return res as { status: number; body: RunAnswer & { error?: { kind: string } } };
};

describe("meta_run over REST", () => {
  it("fans out calls, filters inside the script and returns only what it returns", async () => {
    const { status, body } = await run(`
      const sums = [];
      for (let a = 1; a <= 5; a++) sums.push(await tools.demo["get-sum"]({ a, b: 10 }));
      console.log("got", sums.length);
      return sums.map((s) => s[0].text).filter((t) => /1[34]/.test(t));`);
    expect(status).toBe(200);
    expect(body.error).toBeUndefined();
    expect(body.result).toEqual([expect.stringContaining("13"), expect.stringContaining("14")]);
    expect(body.calls).toBe(5);
    expect(body.logs).toEqual([{ level: "log", message: "got 5" }]);
    expect(body.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("joins the CMS and a local command in one script", async () => {
    const { body } = await run(`
      const page = await call("/cms/evo.content.search", { limit: 50 });
      const version = await tools.cmd.node_version();
      return { documents: page.items.length, published: page.items.filter((d) => d.published).length, version };`);
    expect(body.error).toBeUndefined();
    const result = body.result as { documents: number; published: number };
    expect(result.documents).toBeGreaterThan(40);
    expect(result.published).toBeLessThanOrEqual(result.documents);
    expect(JSON.stringify((body.result as { version: unknown }).version)).toContain(
      process.version,
    );
  });

  it("offers search, describe and tree as the meta tools answer them", async () => {
    const { body } = await run(`
      const found = await search("add two numbers", { limit: 1 });
      const desc = await describe(found.results[0].path);
      const listing = await tree("/");
      return { path: found.results[0].path, type: desc.type, children: listing.children.map((c) => c.path) };`);
    expect(body.result).toEqual({
      path: "/demo/get-sum",
      type: "tool",
      children: ["/demo", "/fx", "/cms", "/cmd"],
    });
  });

  it("throws a failed call into the script with its kind, which the script may catch", async () => {
    const { body } = await run(`
      try { await call("/fx/fail", {}); } catch (e) { return { kind: e.kind, message: e.message }; }`);
    expect(body.result).toEqual({
      kind: "execution_failed",
      message: expect.stringContaining("it failed"),
    });
  });

  it("says where an uncaught error was thrown, and never a host stack", async () => {
    const { body } = await run(`const x = 1;\nthrow new TypeError("bad " + x);`);
    expect(body.error).toMatchObject({
      kind: "script_error",
      message: "TypeError: bad 1",
      line: 2,
    });
    expect(JSON.stringify(body)).not.toMatch(/node:|\/work\/|\.ts:|sandbox-worker/);
  });

  it("needs the run scope, and each inner call needs the caller's own scope", async () => {
    const refused = await run("return 1", noRun);
    expect(refused.status).toBe(403);
    const caught = await run(
      `try { await call("/fx/count", {}); } catch (e) { return e.kind; }`,
      demoOnly,
    );
    expect(caught.body.result).toBe("forbidden");
    const uncaught = await run(`await call("/fx/count", {}); return 1`, demoOnly);
    expect(uncaught.body.error).toMatchObject({ kind: "refused", call_kind: "forbidden" });
  });

  it("counts inner calls against the caller's rate limits", async () => {
    const { body } = await run(
      `const seen = [];
       for (let i = 0; i < 3; i++) {
         try { await call("/fx/count", {}); seen.push("ok"); } catch (e) { seen.push(e.kind); }
       }
       return seen;`,
      limited,
    );
    expect(body.result).toEqual(["ok", "ok", "rate_limited"]);
  });

  it("makes at most eight calls at once, the rest waiting their turn", async () => {
    let done = false;
    const running = run(
      `await Promise.all(Array.from({ length: 20 }, () => call("/fx/sleep", { ms: 400 }))); return "done"`,
    ).finally(() => (done = true));
    let most = 0;
    while (!done) {
      const asked = await broker.post(
        "/meta_call",
        { path: "/fx/sleeping", args: {} },
        bearer(admin),
      );
      most = Math.max(most, Number(asked.body.output.content[0].text));
    }
    expect((await running).body).toMatchObject({ result: "done", calls: 20 });
    expect(most).toBe(8);
  });

  it("makes a call idempotent when the script gives a key", async () => {
    const { body } = await run(`
      const key = { idempotency_key: "run-once-" + Math.random() };
      const first = await call("/fx/count", {}, key);
      const again = await call("/fx/count", {}, key);
      const other = await call("/fx/count", {});
      return [first[0].text === again[0].text, first[0].text === other[0].text];`);
    expect(body.result).toEqual([true, false]);
  });

  it("lets the script see results only after redaction", async () => {
    const { body } = await run(`return await call("/fx/secrets", {});`);
    expect(body.result).toEqual({ user: "ann" });
  });

  it("audits each inner call with the run's id, beside one record for the run", async () => {
    const { body } = await run(
      `await call("/fx/count", {}); await call("/demo/echo", { message: "hi" }); return 2`,
    );
    const records = () => audit.filter((r) => r.run_id === body.run_id);
    await expect.poll(() => records().length).toBe(3);
    expect(
      records()
        .map((r) => [r.method, r.path, r.outcome])
        .sort(),
    ).toEqual([
      ["meta_run", "/", "ok"],
      ["tools/call", "/demo/echo", "ok"],
      ["tools/call", "/fx/count", "ok"],
    ]);
  });
});

describe("meta_desc as TypeScript", () => {
  it("declares the tools under a path that the caller may call", async () => {
    const demo = await broker.post(
      "/meta_desc",
      { path: "/demo", format: "typescript" },
      bearer(admin),
    );
    expect(demo.status).toBe(200);
    expect(demo.body).toMatchObject({ path: "/demo", format: "typescript" });
    expect(demo.body.declarations).toMatch(/demo: \{[\s\S]*"get-sum"\(args: \{[\s\S]*a: number;/);
    const narrow = await broker.post(
      "/meta_desc",
      { path: "/", format: "typescript" },
      bearer(demoOnly),
    );
    expect(narrow.body.declarations).toContain("echo(");
    expect(narrow.body.declarations).not.toContain("count(");
    const { body } = await run(
      `return (await describe("/fx", { format: "typescript" })).declarations`,
    );
    expect(body.result).toContain("count(args?: {");
  });
});

describe("meta_run keeps its bounds", () => {
  it("stops a script that never ends at its timeout", async () => {
    const { body } = await run("while (true) {}", admin, { timeout_s: 1 });
    expect(body.error).toMatchObject({ kind: "timeout" });
    expect(body.duration_ms).toBeLessThan(5000);
  });

  it("stops a script that waits forever at its timeout", async () => {
    const { body } = await run("await new Promise(() => {})", admin, { timeout_s: 1 });
    expect(body.error).toMatchObject({ kind: "timeout" });
  });

  it("ends a script that takes more memory than it may", async () => {
    const { body } = await run(`const a = []; while (true) a.push(new Array(1e6).fill(a.length));`);
    expect(body.error).toMatchObject({ kind: "memory" });
  });

  it("ends deep recursion as a script error", async () => {
    const { body } = await run("function f() { return f() + 1 } return f()");
    expect(body.error).toMatchObject({
      kind: "script_error",
      message: expect.stringMatching(/stack/),
    });
  });

  it("ends a script that makes more calls than a run may", async () => {
    const { body } = await run(`for (let i = 0; i < 1000; i++) await tree("/"); return "done"`);
    expect(body.error).toMatchObject({ kind: "too_many_calls" });
    expect(body.calls).toBe(100);
  });

  it("ends a script that builds a giant string", async () => {
    const { body } = await run(`let s = "x"; for (;;) { s = s + s; s = s.toUpperCase(); }`);
    expect(body.error).toMatchObject({ kind: "memory" });
  });

  it("refuses a result larger than a run may return", async () => {
    const { body } = await run(`return "x".repeat(2_000_000)`);
    expect(body.error).toMatchObject({ kind: "result_too_large" });
  });

  it("reaches nothing of the host", async () => {
    const { body } = await run(`return [
      typeof require, typeof process, typeof globalThis.__host, typeof globalThis.__log,
      typeof fetch, typeof setTimeout,
      typeof (function () {}).constructor.constructor("return this")().process,
    ]`);
    expect(body.result).toEqual(Array(7).fill("undefined"));
    const imported = await run(`return await import("node:fs")`);
    expect(imported.body.error?.kind).toBe("script_error");
  });

  it("refuses a script too long, and code that is not a string, before running anything", async () => {
    expect((await run("x".repeat(30_000))).status).toBe(400);
    expect((await broker.post("/meta_run", { code: 5 }, bearer(admin))).status).toBe(400);
  });
});

describe("meta_run on every surface", () => {
  it("is the fifth meta tool over MCP (SDK 1.x), and tools/list stays small", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(META_TOOL_NAMES);
    expect(JSON.stringify(tools).length).toBeLessThanOrEqual(3072);
    expect(tools.find((t) => t.name === "meta_run")!.description!.length).toBeLessThan(1024);
    const result = await client.callTool({
      name: "meta_run",
      arguments: { code: "return await tools.demo['get-sum']({ a: 2, b: 3 })" },
    });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result)).result).toEqual([
      { type: "text", text: expect.stringContaining("5") },
    ]);
    const failed = await client.callTool({ name: "meta_run", arguments: { code: "throw 1" } });
    expect(failed.isError).toBe(true);
  });

  it("answers a 2026-07-28 client (SDK 2)", async () => {
    const modern = await connectModern(broker.url, bearer(admin));
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const result = await modern.callTool({
        name: "meta_run",
        arguments: { code: "return 6 * 7" },
      });
      expect(JSON.parse((result.content[0] as { text: string }).text).result).toBe(42);
    } finally {
      await modern.close();
    }
  });

  it("is tools/run on the JSON-RPC endpoint", async () => {
    const { body } = await broker.post(
      "/rpc",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/run",
        params: { code: "return (await tree('/')).children.length" },
      },
      bearer(admin),
    );
    expect(body.result).toMatchObject({ result: 4, calls: 1 });
  });
});

describe("many runs at once", () => {
  it("are bounded per caller: of a thousand, what neither runs nor waits is refused at once", async () => {
    const outcomes = await Promise.all(
      // Long enough for all of them to arrive before the first ends, on a busy machine too.
      Array.from({ length: 1000 }, () =>
        run("await new Promise(() => {})", admin, { timeout_s: 8 }),
      ),
    );
    const refused = outcomes.filter((o) => o.status === 429);
    const ran = outcomes.filter((o) => o.status === 200);
    // Two workers of eight runs, and sixteen waiting: the rest is refused.
    expect(ran.length).toBe(32);
    expect(refused.length).toBe(968);
    for (const o of ran) expect(o.body.error).toMatchObject({ kind: "timeout" });
    // And the broker still answers at once.
    expect((await run("return 1")).body.result).toBe(1);
  });
});

describe("meta_run's settings", () => {
  const settingsConfig = (run: Record<string, number>) => ({
    registry: { predefined: false },
    run,
    tree: [
      {
        path: "/cmd",
        source: {
          backend: "command",
          tools: [{ name: "pid", argv: [process.execPath, "-e", "console.log(process.pid)"] }],
        },
      },
    ],
  });

  it("come from the config's run section, and a reload applies to the next script", async () => {
    const own = await startBroker(
      settingsConfig({ max_calls: 3, memory_mb: 16, max_result_chars: 1000, timeout_s: 1 }),
      { reload: true },
    );
    try {
      const ask = async (code: string) =>
        (await own.post("/meta_run", { code })).body as RunAnswer & { error?: { kind: string } };
      // The first run also starts the sandbox's worker, which a loaded machine may take
      // longer than this config's second to do: the limits are asked of a started one.
      await expect.poll(async () => (await ask("return 1")).result, { timeout: 30_000 }).toBe(1);
      const calls = "for (let i = 0; i < 10; i++) await tree('/'); return 'done'";
      expect(await ask(calls)).toMatchObject({ error: { kind: "too_many_calls" }, calls: 3 });
      expect((await ask(`return "x".repeat(2000)`)).error?.kind).toBe("result_too_large");
      // 24 MiB fits the default heap of 64, not this one of 16.
      const big = await ask("return new Uint8Array(24 * 1024 * 1024).length");
      expect(big.error?.kind).toBe("memory");
      const spin = await ask("for (;;) {}");
      expect(spin.error?.kind).toBe("timeout");
      expect(spin.duration_ms).toBeLessThan(4000);

      writeFileSync(own.configFile, JSON.stringify(settingsConfig({ max_calls: 5 })));
      await expect.poll(async () => (await ask(calls)).calls, { timeout: 5000 }).toBe(5);
      expect(await ask("return new Uint8Array(24 * 1024 * 1024).length")).toMatchObject({
        result: 24 * 1024 * 1024,
      });
    } finally {
      await own.close();
    }
  });
});
