import { spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { freePort } from "../helpers/services.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveHttp, type RunningServer } from "../../src/app/serve.js";
import { generateDemo } from "../../src/toolsets/emcp/demo/generate.js";
import { openDatabase } from "../../src/toolsets/emcp/open-database.js";
import { capturingLogger, FIXTURE, fixtureCommand, writeConfig } from "../helpers/broker.js";
import { testComponent } from "../helpers/wasm-components.js";

/**
 * A source of every kind that fails at start (with --ignore-broken-tool) is
 * retried by the broker's supervisor and comes back by itself once its cause
 * is gone, with one state for every kind in /healthz, meta_desc and /metrics,
 * and nothing the backend printed on the wire.
 */
const dir = mkdtempSync(join(tmpdir(), "mcp-broker-supervise-"));
const CONFORMANCE = FIXTURE.replace("fixture-server.mjs", "conformance-server.mjs");
const ready = join(dir, "ready");
const database = join(dir, "evo.sqlite");
const workdir = join(dir, "work");
const component = join(dir, "router.wasm");
const SOURCES = ["/stdio", "/http", "/cms", "/cmd", "/wasm"];

let running: RunningServer;
let url: string;
let httpPort: number;
let httpBackend: ChildProcess | undefined;
const { log, lines } = capturingLogger();

const get = async (path: string) => {
  const res = await fetch(url + path);
  return { status: res.status, text: await res.text() };
};
const post = async (path: string, body: unknown) => {
  const res = await fetch(url + path, { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any };
};

beforeAll(async () => {
  const wasm = await testComponent("everything");
  httpPort = await freePort();
  const config = writeConfig({
    tree: [
      {
        path: "/stdio",
        source: { backend: "stdio", command: fixtureCommand(), env: { FIXTURE_NEEDS_FILE: ready } },
      },
      { path: "/http", source: { backend: "http", url: `http://127.0.0.1:${httpPort}/mcp` } },
      { path: "/cms", source: { backend: "emcp", database: `sqlite:${database}` } },
      {
        path: "/cmd",
        source: {
          backend: "command",
          cwd: workdir,
          tools: [{ name: "node_version", argv: [process.execPath, "--version"] }],
        },
      },
      { path: "/wasm", source: { backend: "wasm", component } },
    ],
  });
  running = await serveHttp({
    host: "127.0.0.1",
    port: 0,
    configFile: config,
    ignoreBroken: true,
    log,
  });
  url = `http://127.0.0.1:${running.port}`;
  // Kept aside until the test puts it in place.
  copyFileSync(wasm, join(dir, "router.wasm.later"));
}, 120_000);

afterAll(async () => {
  httpBackend?.kill();
  await running?.close();
});

describe("a source of every kind that fails at start", () => {
  it("is reported failed, with attempts and a last error, the same for every kind", async () => {
    const details = JSON.parse((await get("/healthz?details")).text);
    expect(details.ok).toBe(false);
    for (const source of SOURCES) {
      expect(details.sources[source], source).toMatchObject({
        state: "failed",
        up: false,
        attempts: expect.any(Number),
        last_error: expect.stringContaining(source),
      });
      expect(details.sources[source].attempts).toBeGreaterThanOrEqual(1);
    }
    const plain = await get("/healthz");
    expect(plain.status).toBe(503);
    expect(JSON.parse(plain.text).sources["/cms"]).toEqual({ up: false });
    const desc = await post("/meta_desc", { path: "/cms" });
    expect(desc.body.source).toMatchObject({ name: "/cms", state: "failed", up: false });
    const metrics = (await get("/metrics")).text;
    expect(metrics).toContain('mcp_broker_source_state{source="/wasm",state="failed"} 1');
    expect(metrics).toMatch(/mcp_broker_source_attempts\{source="\/http"\} [1-9]/);
  });

  it("never shows what the backend printed, which the log has", async () => {
    for (const text of [
      (await get("/healthz?details")).text,
      JSON.stringify((await post("/meta_desc", { path: "/stdio" })).body),
    ])
      expect(text).not.toContain("hunter2");
    const logged = lines().filter((l) => l.source === "/stdio" && l.level === 40);
    expect(JSON.stringify(logged)).toContain("secret=hunter2");
  });

  it("comes back by itself once its cause is gone", async () => {
    writeFileSync(ready, "");
    httpBackend = spawn(process.execPath, [CONFORMANCE, "--http", String(httpPort)], {
      stdio: "ignore",
    });
    const partial = `${database}.partial`;
    const opened = openDatabase(`sqlite:${partial}`);
    await generateDemo(opened, "evo_", 20);
    await opened.db.destroy();
    renameSync(partial, database);
    mkdirSync(workdir);
    renameSync(join(dir, "router.wasm.later"), component);

    await expect
      .poll(async () => JSON.parse((await get("/healthz")).text).ok, {
        timeout: 45_000,
        interval: 250,
      })
      .toBe(true);
    const details = JSON.parse((await get("/healthz?details")).text);
    for (const source of SOURCES) {
      expect(details.sources[source], source).toMatchObject({ state: "up", attempts: 0 });
      expect(details.sources[source].last_error).toBeUndefined();
    }
    const calls = await Promise.all([
      post("/meta_call", { path: "/stdio/pid", args: {} }),
      post("/meta_call", { path: "/http/test_simple_text", args: {} }),
      post("/meta_call", { path: "/cms/evo.content.get", args: { id: 1 } }),
      post("/meta_call", { path: "/cmd/node_version", args: {} }),
      post("/meta_call", { path: "/wasm/echo", args: { message: "back" } }),
    ]);
    for (const call of calls) expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(calls[2]!.body.output.structuredContent.item.id).toBe(1);
  }, 60_000);
});
