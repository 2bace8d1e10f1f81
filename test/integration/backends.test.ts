import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import {
  FIXTURE,
  fixtureCommand,
  startBroker,
  writeConfig,
  type TestBroker,
} from "../helpers/broker.js";
import { cliArgv, runCli } from "../helpers/cli.js";
import { connectHttp, connectStdio, textOf } from "../helpers/mcp-client.js";

const CONFORMANCE_FIXTURE = FIXTURE.replace("fixture-server.mjs", "conformance-server.mjs");
const children: ChildProcess[] = [];
const brokers: TestBroker[] = [];

function serveFixture(port = 0): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [CONFORMANCE_FIXTURE, "--http", String(port)], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  children.push(child);
  return new Promise((resolve) =>
    child.stdout!.once("data", (d: Buffer) =>
      resolve({ child, port: Number(d.toString().trim()) }),
    ),
  );
}

afterAll(async () => {
  for (const b of brokers) await b.close();
  for (const c of children) c.kill();
});

describe("an HTTP backend", () => {
  it("is mounted like a stdio one, and reconnected after it went away", async () => {
    const first = await serveFixture();
    const broker = await startBroker({
      tree: [
        {
          path: "/remote",
          source: {
            backend: "http",
            url: `http://127.0.0.1:${first.port}/mcp`,
            headers: { "x-test": "yes" },
          },
        },
      ],
    });
    brokers.push(broker);
    const call = () => broker.post("/meta_call", { path: "/remote/test_simple_text", args: {} });
    expect((await call()).body.output.content[0].text).toBe(
      "This is a simple text response for testing.",
    );

    first.child.kill();
    await new Promise((r) => first.child.once("exit", r));
    const down = await call();
    expect(down.status).toBe(503);
    expect(down.body.error.message).toContain("/remote");

    await serveFixture(first.port);
    await expect
      .poll(async () => (await call()).status, { timeout: 15_000, interval: 250 })
      .toBe(200);
    expect(broker.broker.health().sources["/remote"]).toMatchObject({ up: true });
  });

  it("refuses a URL that is not http(s) at config time", async () => {
    await expect(
      startBroker({
        tree: [{ path: "/r", source: { backend: "http", url: "ftp://example.org/mcp" } }],
      }),
    ).rejects.toThrow(/\$\.tree\[0\]\.source\.url: expected an http:\/\/ or https:\/\/ URL/);
  });
});

describe("a stdio backend killed mid-call, on its own endpoint", () => {
  it("fails the caller's call as unavailable and leaves the other session alone", async () => {
    const broker = await startBroker({
      tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
    });
    brokers.push(broker);
    const a = await connectHttp(broker.url, {}, { path: "/mcp/fx" });
    const b = await connectHttp(broker.url, {}, { path: "/mcp/fx" });
    const pid = Number(textOf(await b.callTool({ name: "pid", arguments: {} })));
    const { promise: started, resolve: onStart } = Promise.withResolvers<void>();
    const pending = a.callTool({ name: "sleep", arguments: { ms: 10_000 } }, undefined, {
      onprogress: () => onStart(),
    });
    await started;
    process.kill(pid, "SIGKILL");
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result)).error).toMatchObject({ kind: "unavailable" });
    await expect
      .poll(async () => (await b.callTool({ name: "pid", arguments: {} })).isError ?? false, {
        timeout: 10_000,
      })
      .toBe(false);
    expect(Number(textOf(await b.callTool({ name: "pid", arguments: {} })))).not.toBe(pid);
    expect(textOf(await a.callTool({ name: "sleep", arguments: { ms: 1 } }))).toBe("slept 1");
    await Promise.all([a.close(), b.close()]);
  });
});

describe("stdio --server NAME", () => {
  it("serves one source as itself over stdio", async () => {
    const config = writeConfig({
      tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
    });
    const client = await connectStdio(
      cliArgv("stdio", config, "--server", "fx", "--log-level", "silent"),
    );
    expect(client.getServerVersion()).toEqual({ name: "fixture", version: "1.0.0" });
    expect(client.getInstructions()).toBe("A fixture for tests.");
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
      "test://a",
      "test://b",
    ]);
    expect(textOf(await client.callTool({ name: "sleep", arguments: { ms: 1 } }))).toBe("slept 1");
    await client.close();
  });

  it("names the sources there are for an unknown one", async () => {
    const config = writeConfig({
      tree: [{ path: "/fx", source: { backend: "stdio", command: fixtureCommand() } }],
    });
    const { code, stderr } = await runCli(
      "stdio",
      config,
      "--server",
      "nope",
      "--log-level",
      "silent",
    );
    expect(code).toBe(1);
    expect(stderr).toContain('no source named "nope"; the sources are fx');
  });
});
