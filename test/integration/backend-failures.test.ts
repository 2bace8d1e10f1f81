import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Broker } from "../../src/broker/broker.js";
import { parseConfig } from "../../src/config/load.js";
import { ConfigSchema } from "../../src/sources/kinds.js";
import {
  capturingLogger,
  fixtureCommand,
  isAlive,
  rawServerSource,
  startBroker,
} from "../helpers/broker.js";
import { answerWithMcp, listenOnLoopback, type LoopbackServer } from "../helpers/loopback-mcp.js";

const config = (tree: unknown) => parseConfig(JSON.stringify({ tree }), "test", ConfigSchema, {});
/** What a backend's error page may hold, which must never reach a caller. */
const PAGE_SECRET = "db-password=hunter2";

/**
 * A real MCP server over Streamable HTTP on loopback (stateless, one `ping`
 * tool) that can be switched to answer every request with an error page.
 */
async function flakyBackend(
  failWith?: number,
): Promise<LoopbackServer & { failWith: number | undefined }> {
  const state = { failWith };
  const server = await listenOnLoopback(async (req, res) => {
    if (state.failWith !== undefined) {
      res.writeHead(state.failWith, { "content-type": "text/html" });
      return res.end(`<html><pre>Traceback: ${PAGE_SECRET}</pre></html>`);
    }
    const mcp = new McpServer({ name: "flaky", version: "1" });
    mcp.registerTool("ping", { description: "Answers pong." }, async () => ({
      content: [{ type: "text", text: "pong" }],
    }));
    await answerWithMcp(mcp, req, res);
  });
  return Object.assign(state, server);
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("a backend that fails says why, and only the log quotes it", () => {
  it("an HTTP backend's error page at start: the status in words, the page in the log", async () => {
    const backend = await flakyBackend(404);
    cleanups.push(() => backend.close());
    const { log, lines } = capturingLogger();
    const refused = Broker.start(
      config([{ path: "/f", source: { backend: "http", url: backend.url } }]),
      {
        log,
      },
    );
    await expect(refused).rejects.toThrow(
      /\/f: source \/f could not start http:\/\/127\.0\.0\.1:\d+\/mcp: nothing answers MCP at that URL \(HTTP 404\)/,
    );
    await expect(refused).rejects.not.toThrow(PAGE_SECRET);
    const failed = lines().find((l) => l.msg === "source failed to start");
    expect(failed.err).toContain(PAGE_SECRET);
  });

  it("an HTTP backend's error page during a call: HTTP 500 to the caller, the page in the log", async () => {
    const backend = await flakyBackend();
    cleanups.push(() => backend.close());
    const { log, lines } = capturingLogger();
    const broker = await startBroker(
      { tree: [{ path: "/f", source: { backend: "http", url: backend.url } }] },
      { log },
    );
    cleanups.push(() => broker.close());
    expect((await broker.post("/meta_call", { path: "/f/ping" })).body.output).toEqual({
      content: [{ type: "text", text: "pong" }],
    });
    backend.failWith = 500;
    const failed = await broker.post("/meta_call", { path: "/f/ping" });
    expect(failed.status).toBe(503);
    expect(failed.body.error.message).toMatch(
      /source \/f failed tools\/call ping: it answered HTTP 500/,
    );
    expect(JSON.stringify(failed.body)).not.toContain(PAGE_SECRET);
    const logged = lines().find((l) => l.msg === "backend request failed");
    expect(logged).toMatchObject({ source: "/f", what: "tools/call ping" });
    expect(logged.err).toContain(PAGE_SECRET);
  });

  it("JSON that is not MCP at the URL (another API's answer): says so in one line, not the check's dump", async () => {
    const backend = await listenOnLoopback((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "ok", [PAGE_SECRET]: true }));
    });
    cleanups.push(() => backend.close());
    const refused = Broker.start(
      config([{ path: "/f", source: { backend: "http", url: backend.url } }]),
      { log: capturingLogger().log },
    );
    await expect(refused).rejects.toThrow(
      /\/f: source \/f could not start http:\/\/127\.0\.0\.1:\d+\/mcp: it answered with JSON that is not an MCP message \(JSON-RPC 2\.0\): check the endpoint's path$/,
    );
    await expect(refused).rejects.not.toThrow(PAGE_SECRET);
  });

  it("nothing listening: says so, not 'fetch failed'", async () => {
    const backend = await flakyBackend();
    const url = backend.url;
    await backend.close();
    await expect(
      Broker.start(config([{ path: "/f", source: { backend: "http", url } }]), {
        log: capturingLogger().log,
      }),
    ).rejects.toThrow(/nothing listens at that address \(connection refused\)/);
  });

  it("a start that fails again the same way logs its raw error once; each retry, in words", async () => {
    const backend = await flakyBackend();
    const url = backend.url;
    await backend.close();
    const { log, lines } = capturingLogger();
    const broker = await Broker.start(config([{ path: "/f", source: { backend: "http", url } }]), {
      log,
      ignoreBroken: true,
    });
    cleanups.push(() => broker.close());
    const retried = () => lines().filter((l) => l.msg === "source failed to start; it is retried");
    await expect.poll(() => retried().length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    const raw = lines().filter((l) => l.msg === "source failed to start");
    expect(raw.filter((l) => l.level === 40)).toHaveLength(1);
    expect(raw.filter((l) => l.level === 20).length).toBeGreaterThanOrEqual(2);
  });

  it("a live program whose handshake fails: what failed, not 'exited'", async () => {
    await expect(
      Broker.start(
        config([
          {
            path: "/o",
            // It answers in JSON-RPC, but offers a revision no client speaks, and stays up.
            source: rawServerSource({ RAW_REVISION: "1999-01-01" }),
          },
        ]),
        { log: capturingLogger().log },
      ),
    ).rejects.toThrow(/\/o: .*: Server's protocol version is not supported: 1999-01-01$/m);
  });

  it("a program that never answers: given start_timeout_s, told it is slow, then stopped, its process ended", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "mcp-broker-test-")), "pid");
    const { log, lines } = capturingLogger();
    const started = Date.now();
    const refused = Broker.start(
      config([
        {
          path: "/mute",
          source: {
            backend: "stdio",
            command: fixtureCommand(),
            env: { FIXTURE_DELAY_MS: "60000", FIXTURE_PID_FILE: pidFile },
            start_timeout_s: 1,
          },
        },
      ]),
      { log },
    );
    await expect(refused).rejects.toThrow(
      /\/mute: .*it did not finish starting within 1 s: is it an MCP server on stdio\? .*only JSON-RPC to its stdout/,
    );
    // A second per request (probe, then initialize) would be two; a start is given one in all.
    expect(Date.now() - started).toBeLessThan(1000 + 4000 + 1000);
    expect(lines().find((l) => l.msg.startsWith("source is slow to start"))).toMatchObject({
      source: "/mute",
      waited_s: 0.5,
    });
    expect(isAlive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });
});
